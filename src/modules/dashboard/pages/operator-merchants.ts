import { html } from '../../../http/html.js';
import type { Merchant } from '../../merchants/service.js';
import { dateTime } from '../format.js';
import { bilingual, common } from '../i18n.js';
import { csrfField, layout, type PageContext } from '../layout.js';

export const merchantsText = bilingual(
  {
    title: 'Lojistas',
    list: 'Lojistas cadastrados',
    name: 'Nome',
    merchantId: 'merchantId',
    document: 'CPF/CNPJ',
    account: 'Conta',
    created: 'Criado em',
    create: 'Cadastrar lojista',
    documentHint: 'Só dígitos (CNPJ alfanumérico aceito)',
    legalName: 'Razão social (opcional)',
    email: 'E-mail (opcional)',
    submit: 'Cadastrar',
    previous: 'Página anterior',
    pageOf: 'Página {page} de {pages}',
  },
  {
    title: 'Merchants',
    list: 'Registered merchants',
    name: 'Name',
    merchantId: 'merchantId',
    document: 'CPF/CNPJ',
    account: 'Account',
    created: 'Created',
    create: 'Register a merchant',
    documentHint: 'Digits only (alphanumeric CNPJ allowed)',
    legalName: 'Legal name (optional)',
    email: 'Email (optional)',
    submit: 'Register',
    previous: 'Previous page',
    pageOf: 'Page {page} of {pages}',
  },
);

export interface MerchantsView {
  items: Merchant[];
  page: number;
  pages: number;
}

export function merchantsPage(page: PageContext, view: MerchantsView): string {
  const t = merchantsText(page.lang);
  const c = common(page.lang);
  const rows = view.items.map(
    (m) => html`<tr><td><a href="/dashboard/operator/merchants/${m.merchantId}">${m.name}</a></td><td><code>${m.merchantId}</code></td><td>${m.documentNumber}</td><td class="num">${m.accountNumber}</td><td>${dateTime(m.createdDate)}</td></tr>`,
  );
  const pager = html`<nav class="pager" aria-label="${t.pageOf.replace('{page}', String(view.page)).replace('{pages}', String(view.pages))}">
${view.page > 1 ? html`<a href="/dashboard/operator/merchants?page=${view.page - 1}">${t.previous}</a>` : ''}
<span class="muted">${t.pageOf.replace('{page}', String(view.page)).replace('{pages}', String(view.pages))}</span>
${view.page < view.pages ? html`<a href="/dashboard/operator/merchants?page=${view.page + 1}">${c.next}</a>` : ''}
</nav>`;
  return layout(
    page,
    t.title,
    html`<h2>${t.list}</h2>
<div class="table-wrap"><table>
<thead><tr><th scope="col">${t.name}</th><th scope="col">${t.merchantId}</th><th scope="col">${t.document}</th><th scope="col" class="num">${t.account}</th><th scope="col">${t.created}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5">${c.noRows}</td></tr>`}</tbody>
</table></div>
${pager}
<h2 id="create">${t.create}</h2>
<form method="post" action="/dashboard/operator/merchants" class="card narrow">
${csrfField(page)}
<label for="name">${t.name}</label>
<input id="name" name="name" required maxlength="100">
<label for="documentNumber">${t.document}</label>
<input id="documentNumber" name="documentNumber" required minlength="11" maxlength="14" aria-describedby="documentHint" autocomplete="off">
<p id="documentHint" class="muted">${t.documentHint}</p>
<label for="legalName">${t.legalName}</label>
<input id="legalName" name="legalName" maxlength="255">
<label for="email">${t.email}</label>
<input id="email" name="email" type="email" maxlength="255">
<button type="submit">${t.submit}</button>
</form>`,
  );
}
