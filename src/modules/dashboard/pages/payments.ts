import { html } from '../../../http/html.js';
import type { PaymentListRow } from '../../payments/reads.js';
import { brl, dateTime } from '../format.js';
import { bilingual, common } from '../i18n.js';
import { layout, type PageContext } from '../layout.js';
import { PAYMENT_STATUSES, statusBadge, statusLabel } from './payment-status.js';

const strings = bilingual(
  {
    title: 'Pagamentos',
    from: 'De',
    to: 'Até',
    status: 'Status',
    any: 'Todos',
    reference: 'Referência (referenceTransaction)',
    refColumn: 'Referência',
    lastFour: 'Últimos 4 dígitos do cartão',
    date: 'Data',
    amount: 'Valor',
    installments: 'Parcelas',
    card: 'Cartão',
    brand: 'Bandeira',
    caption: 'Pagamentos de {from} a {to}, mais recentes primeiro',
  },
  {
    title: 'Payments',
    from: 'From',
    to: 'To',
    status: 'Status',
    any: 'Any',
    reference: 'Reference (referenceTransaction)',
    refColumn: 'Reference',
    lastFour: 'Card last four digits',
    date: 'Date',
    amount: 'Amount',
    installments: 'Installments',
    card: 'Card',
    brand: 'Brand',
    caption: 'Payments from {from} to {to}, newest first',
  },
);

export interface PaymentsFilterView {
  from: string;
  to: string;
  status: string;
  reference: string;
  lastFour: string;
}

export interface PaymentsView {
  filter: PaymentsFilterView;
  rows: PaymentListRow[];
  /** The "next page" URL when there are more rows. */
  next?: string;
  /** True when this is not the first page. */
  paged: boolean;
}

/** The filters as a query string (the pager keeps them). */
export function filterQuery(f: PaymentsFilterView): URLSearchParams {
  const q = new URLSearchParams({ from: f.from, to: f.to });
  if (f.status) q.set('status', f.status);
  if (f.reference) q.set('reference', f.reference);
  if (f.lastFour) q.set('lastFour', f.lastFour);
  return q;
}

export function paymentsPage(page: PageContext, view: PaymentsView): string {
  const t = strings(page.lang);
  const c = common(page.lang);
  const f = view.filter;
  const form = html`<form method="get" action="/dashboard/payments" class="card filters" role="search">
<div><label for="f-from">${t.from}</label><input id="f-from" name="from" type="date" value="${f.from}" required></div>
<div><label for="f-to">${t.to}</label><input id="f-to" name="to" type="date" value="${f.to}" required></div>
<div><label for="f-status">${t.status}</label><select id="f-status" name="status"><option value="">${t.any}</option>
${PAYMENT_STATUSES.map((s) => html`<option value="${s}"${f.status === s ? html` selected` : ''}>${statusLabel(page.lang, s)}</option>`)}</select></div>
<div><label for="f-reference">${t.reference}</label><input id="f-reference" name="reference" maxlength="50" value="${f.reference}"></div>
<div><label for="f-last4">${t.lastFour}</label><input id="f-last4" name="lastFour" inputmode="numeric" pattern="[0-9]{4}" maxlength="4" value="${f.lastFour}"></div>
<div><button type="submit">${c.filter}</button></div>
</form>`;
  const caption = t.caption.replace('{from}', f.from.split('-').reverse().join('/')).replace('{to}', f.to.split('-').reverse().join('/'));
  const table = view.rows.length === 0
    ? html`<p class="card muted" id="no-payments">${c.noRows}</p>`
    : html`<div class="table-wrap"><table id="payments">
<caption>${caption}</caption>
<thead><tr><th scope="col">${t.date}</th><th scope="col">${t.refColumn}</th><th scope="col" class="num">${t.amount}</th><th scope="col" class="num">${t.installments}</th><th scope="col">${t.status}</th><th scope="col">${t.card}</th><th scope="col">${t.brand}</th></tr></thead>
<tbody>
${view.rows.map((r) => html`<tr>
<td><a href="/dashboard/payments/${r.payment_id}">${dateTime(r.created_at)}</a></td>
<td>${r.reference_transaction ?? ''}</td><td class="num">${brl(BigInt(r.amount))}</td><td class="num">${r.installments}</td>
<td>${statusBadge(page.lang, r.status)}</td><td class="mono">${r.masked_card_number}</td><td>${r.brand}</td>
</tr>`)}
</tbody></table></div>`;
  const pager = html`<nav class="pager" aria-label="${c.next}">
${view.paged ? html`<a href="/dashboard/payments?${filterQuery(f).toString()}">${c.first}</a>` : ''}
${view.next ? html`<a href="${view.next}" rel="next">${c.next}</a>` : ''}
</nav>`;
  return layout(page, t.title, html`${form}${table}${pager}`);
}
