import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { DashboardServices } from '../../services.js';
import { html } from '../../../../http/html.js';
import type { Merchant } from '../../../merchants/service.js';
import { dateTime } from '../../format.js';
import { formSchema } from '../../forms.js';
import { requireOperator, seeOther, sendPage, type DashboardDeps } from '../../http.js';
import { bilingual, common } from '../../i18n.js';
import { csrfField, layout, type PageContext } from '../../layout.js';

const PAGE_SIZE = 20;

const ListQuery = Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })) });
/** The create form: the bounds of POST /admin/merchants' body (its route file keeps the schema inline). */
const CreateForm = formSchema({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  documentNumber: Type.String({ minLength: 11, maxLength: 14 }),
  legalName: Type.Optional(Type.String({ maxLength: 255 })),
  email: Type.Optional(Type.Union([Type.Literal(''), Type.String({ maxLength: 255, format: 'email' })])),
});

/** GET/POST /dashboard/operator/merchants: the list (the admin API's paging, newest first) and the create form. */
export function merchantsPage(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
  scope.get('/operator/merchants', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const page = requireOperator(request, deps);
    const { page: n = 1 } = request.query as Static<typeof ListQuery>;
    // The merchants table holds the gateway's merchants (hundreds, not millions): the API's page/limit paging is fine here.
    const list = await ctx.merchants.list({ page: n, limit: PAGE_SIZE, orderBy: 'createdDate:desc' });
    return sendPage(reply, 200, render(page, { items: list.items, page: n, pages: Math.max(1, Math.ceil(list.total / PAGE_SIZE)) }));
  });

  scope.post('/operator/merchants', { schema: { hide: true, body: CreateForm } }, async (request, reply) => {
    requireOperator(request, deps);
    const form = request.body as Static<typeof CreateForm>;
    // The same service call as POST /admin/merchants (it checks the CPF/CNPJ).
    const merchant = await ctx.merchants.create({
      name: form.name,
      documentNumber: form.documentNumber,
      legalName: form.legalName || undefined,
      email: form.email || undefined,
    });
    return seeOther(reply, `/dashboard/operator/merchants/${merchant.merchantId}?done=created`);
  });
}

const merchantsText = bilingual(
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

interface MerchantsView {
  items: Merchant[];
  page: number;
  pages: number;
}

function render(page: PageContext, view: MerchantsView): string {
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
