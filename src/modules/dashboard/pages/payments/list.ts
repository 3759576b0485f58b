import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { PaymentStatus } from '../../../../domain/lifecycles.js';
import type { DashboardServices } from '../../services.js';
import { addDays } from '../../../../domain/calendar.js';
import { invalid } from '../../../../domain/errors.js';
import { html } from '../../../../http/html.js';
import type { PaymentListRow } from '../../../payments/dashboard-queries.js';
import { brasiliaDate, brasiliaStart } from '../../brasilia-days.js';
import { brl, dateTime } from '../../format.js';
import { formProblems, worded } from '../../forms.js';
import { pageOf, requireMerchant, sendPage, type DashboardDeps } from '../../http.js';
import { bilingual, common } from '../../i18n.js';
import { layout, type PageContext } from '../../layout.js';
import { PAYMENT_ID, PAYMENT_STATUSES, statusBadge, statusLabel } from './status.js';

const PAGE_SIZE = 50;

const dateOrEmpty = Type.Union([Type.Literal(''), Type.String({ format: 'date' })], { maxLength: 10 });
// Checked in the handler (attachValidation), after the session: a visitor without one goes to the login first.
const FilterQuery = Type.Object({
  from: worded(Type.Optional(dateOrEmpty), () => 'from must be a date YYYY-MM-DD.'),
  to: worded(Type.Optional(dateOrEmpty), () => 'to must be a date YYYY-MM-DD.'),
  status: worded(Type.Optional(Type.Union([Type.Literal(''), ...PAYMENT_STATUSES.map((s) => Type.Literal(s))], { maxLength: 20 })), () => `status must be one of ${PAYMENT_STATUSES.join(', ')}.`),
  reference: Type.Optional(Type.String({ maxLength: 50 })),
  lastFour: worded(Type.Optional(Type.String({ maxLength: 4, pattern: '^([0-9]{4})?$' })), () => 'lastFour must be the last 4 digits of the card.'),
  after: Type.Optional(Type.String({ maxLength: 200 })),
});

/** The keyset of the next page: the last row's (created_at, payment_id), opaque to the browser. */
const cursorOf = (at: string, id: string) => Buffer.from(`${at}|${id}`).toString('base64url');
function parseCursor(text: string): { at: string; id: string } {
  const [at, id, extra] = Buffer.from(text, 'base64url').toString('utf8').split('|');
  if (extra !== undefined || !id || !PAYMENT_ID.test(id) || !/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(at ?? '')) throw invalid('after', 'after is not a page of this list; start again from the first page.');
  return { at, id };
}

/** GET /dashboard/payments: the merchant's payments by date range, status, reference and card, read through PaymentService. */
export function paymentListPage(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
  scope.get('/payments', { schema: { hide: true, querystring: FilterQuery }, attachValidation: true }, async (request, reply) => {
    const p = requireMerchant(request);
    const problems = formProblems(request, FilterQuery);
    const q = request.query as Static<typeof FilterQuery>;
    const today = brasiliaDate(ctx.clock.now());
    const filter: PaymentsFilterView = {
      from: q.from || addDays(today, -29),
      to: q.to || today,
      status: q.status ?? '',
      reference: q.reference?.trim() ?? '',
      lastFour: q.lastFour ?? '',
    };
    if (problems.length === 0 && filter.from > filter.to) problems.push({ tag: 'from', description: 'from must not be after to.' });
    if (problems.length > 0) throw invalid(problems);
    const rows = await ctx.payments.reads.search(
      p.merchantId,
      {
        from: brasiliaStart(filter.from),
        to: brasiliaStart(addDays(filter.to, 1)),
        status: filter.status || undefined,
        reference: filter.reference || undefined,
        lastFour: filter.lastFour || undefined,
        after: q.after ? parseCursor(q.after) : undefined,
      },
      PAGE_SIZE + 1,
    );
    const shown = rows.slice(0, PAGE_SIZE);
    let next: string | undefined;
    if (rows.length > PAGE_SIZE) {
      const last = shown[shown.length - 1];
      const query = filterQuery(filter);
      query.set('after', cursorOf(last.created_at, last.payment_id));
      next = `/dashboard/payments?${query.toString()}`;
    }
    return sendPage(reply, 200, render(pageOf(request, deps), { filter, rows: shown, next, paged: q.after !== undefined }));
  });
}

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

interface PaymentsFilterView {
  from: string;
  to: string;
  status: PaymentStatus | '';
  reference: string;
  lastFour: string;
}

interface PaymentsView {
  filter: PaymentsFilterView;
  rows: PaymentListRow[];
  /** The "next page" URL when there are more rows. */
  next?: string;
  /** True when this is not the first page. */
  paged: boolean;
}

/** The filters as a query string (the pager keeps them). */
function filterQuery(f: PaymentsFilterView): URLSearchParams {
  const q = new URLSearchParams({ from: f.from, to: f.to });
  if (f.status) q.set('status', f.status);
  if (f.reference) q.set('reference', f.reference);
  if (f.lastFour) q.set('lastFour', f.lastFour);
  return q;
}

function render(page: PageContext, view: PaymentsView): string {
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
