import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { addDays, toIsoDate } from '../../../domain/calendar.js';
import { ApiError } from '../../../http/errors.js';
import { html } from '../../../http/html.js';
import { renderSlipPdf } from '../../bankslips/pdf.js';
import type { BankSlipDetail, BankSlipListRecord } from '../../bankslips/schemas.js';
import { date, reais } from '../format.js';
import { pageOf, requireMerchant, requireScope, sendPage, type DashboardDeps } from '../http.js';
import { bilingual, common } from '../i18n.js';
import { layout, type PageContext } from '../layout.js';
import { badge, decodeCursor, encodeCursor, flash, pager, withAfter, type Tone } from '../lists.js';

const PAGE_SIZE = 50;
const SLIP_ORDERS = ['due', 'payment', 'credit'] as const;
type SlipOrder = (typeof SLIP_ORDERS)[number];
const DATE = '^\\d{4}-\\d{2}-\\d{2}$';
const ListQuery = Type.Object({
  by: Type.Optional(Type.Union(SLIP_ORDERS.map((o) => Type.Literal(o)))),
  startDate: Type.Optional(Type.String({ pattern: DATE })),
  endDate: Type.Optional(Type.String({ pattern: DATE })),
  after: Type.Optional(Type.String({ maxLength: 400 })),
});
const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-fA-F-]{36}$' }) });

/**
 * GET /dashboard/bankslips (the integration API's three listings, a page at a time), its detail
 * (BankSlipService.information) and its PDF (BankSlipService.printable, as the API's pdf route).
 * Bank slips belong to the integration API: its scope is required, as its token would need.
 */
export function bankSlipPages(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  scope.get('/bankslips', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'integration');
    const query = request.query as Static<typeof ListQuery>;
    const today = toIsoDate(ctx.clock.now());
    // Without a range: the 90 days around today (30 back, 60 ahead), the widest the listings allow.
    const view = { by: query.by ?? 'due', startDate: query.startDate ?? addDays(today, -30), endDate: query.endDate ?? addDays(today, 60) };
    const after = decodeCursor<{ date: string; seq: number }>(query.after, { date: 'string', seq: 'number' });
    const page = pageOf(request, deps);
    try {
      const result = await ctx.bankSlips.listPage(principal.accountNumber, view.by, view.startDate, view.endDate, PAGE_SIZE, after);
      const nextHref = result.next ? withAfter('/dashboard/bankslips', view, encodeCursor(result.next)) : undefined;
      return sendPage(reply, 200, renderList(page, { ...view, items: result.items, nextHref, onFirst: !after }));
    } catch (error) {
      // A reversed or too wide range: the form again with the listing's own message.
      if (!(error instanceof ApiError) || error.statusCode !== 400) throw error;
      return sendPage(reply, 400, renderList(page, { ...view, items: [], onFirst: true, errors: error.errors.map((e) => e.description) }));
    }
  });

  scope.get('/bankslips/:id', { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'integration');
    const slip = await ctx.bankSlips.information(principal.merchantId, (request.params as { id: string }).id.toLowerCase());
    return sendPage(reply, 200, renderDetail(pageOf(request, deps), slip));
  });

  scope.get('/bankslips/:id/pdf', { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'integration');
    const id = (request.params as { id: string }).id.toLowerCase();
    const pdf = await renderSlipPdf(await ctx.bankSlips.printable(principal.merchantId, id), ctx.clock.now());
    return reply.type('application/pdf').header('Content-Disposition', `inline; filename="boleto-${id}.pdf"`).header('Cache-Control', 'no-store').send(pdf);
  });
}

const slipWords = bilingual(
  {
    title: 'Boletos',
    by: 'Listar por',
    due: 'Data de vencimento',
    payment: 'Data de pagamento',
    credit: 'Data de crédito',
    startDate: 'De (data)',
    endDate: 'Até (data)',
    payer: 'Pagador',
    document: 'Documento do pagador',
    issue: 'Emissão',
    paid: 'Valor pago',
    line: 'Linha digitável',
    barCode: 'Código de barras',
    ourNumber: 'Nosso número',
    reference: 'Referência',
    pdf: 'Baixar o boleto (PDF)',
    noPdf: 'O PDF fica disponível depois do registro do boleto.',
    pix: 'Pix (copia e cola)',
    overdue: 'Pagamento após o vencimento',
    overdueUntil: 'aceito até {date}, multa {penalty} %, juros {interest} % ao mês',
    notAllowed: 'não aceito',
    failure: 'Motivo da falha',
    caption: 'Boletos por {by}, de {start} a {end}',
    s1: 'Em processamento',
    s2: 'Emitido',
    s3: 'Pago',
    s9: 'Vencido',
    s99: 'Falhou',
  },
  {
    title: 'Bank slips',
    by: 'List by',
    due: 'Due date',
    payment: 'Payment date',
    credit: 'Credit date',
    startDate: 'From (date)',
    endDate: 'To (date)',
    payer: 'Payer',
    document: 'Payer document',
    issue: 'Issued',
    paid: 'Amount paid',
    line: 'Digitable line',
    barCode: 'Barcode',
    ourNumber: 'Our number',
    reference: 'Reference',
    pdf: 'Download the slip (PDF)',
    noPdf: 'The PDF is available once the slip is registered.',
    pix: 'Pix (copy and paste)',
    overdue: 'Payment after the due date',
    overdueUntil: 'accepted until {date}, penalty {penalty} %, interest {interest} % a month',
    notAllowed: 'not accepted',
    failure: 'Why it failed',
    caption: 'Bank slips by {by}, from {start} to {end}',
    s1: 'Processing',
    s2: 'Issued',
    s3: 'Paid',
    s9: 'Overdue',
    s99: 'Failed',
  },
);

const TONE: Record<number, Tone> = { 1: 'wait', 2: 'wait', 3: 'good', 9: 'bad', 99: 'bad' };

function slipBadge(page: PageContext, status: number) {
  const t = slipWords(page.lang) as Record<string, string>;
  return badge(t[`s${status}`] ?? String(status), TONE[status] ?? '');
}

interface SlipsView {
  by: SlipOrder;
  startDate: string;
  endDate: string;
  items: BankSlipListRecord[];
  nextHref?: string;
  onFirst: boolean;
  errors?: string[];
}

function renderList(page: PageContext, view: SlipsView): string {
  const t = slipWords(page.lang);
  const c = common(page.lang);
  const first = `/dashboard/bankslips?by=${view.by}&startDate=${view.startDate}&endDate=${view.endDate}`;
  return layout(
    page,
    t.title,
    html`${flash(undefined, view.errors)}
<form method="get" action="/dashboard/bankslips" class="filters card">
<div><label for="by">${t.by}</label><select id="by" name="by">${SLIP_ORDERS.map((o) => html`<option value="${o}"${view.by === o ? html` selected` : ''}>${t[o]}</option>`)}</select></div>
<div><label for="startDate">${t.startDate}</label><input id="startDate" name="startDate" type="date" value="${view.startDate}" required></div>
<div><label for="endDate">${t.endDate}</label><input id="endDate" name="endDate" type="date" value="${view.endDate}" required></div>
<button type="submit">${c.filter}</button>
</form>
${view.items.length
  ? html`<div class="table-wrap"><table><caption>${t.caption.replace('{by}', t[view.by].toLowerCase()).replace('{start}', date(view.startDate)).replace('{end}', date(view.endDate))}</caption>
<thead><tr><th scope="col">${t.payer}</th><th scope="col" class="num">${c.amount}</th><th scope="col">${t.due}</th><th scope="col">${t.payment}</th><th scope="col">${t.credit}</th><th scope="col">${c.status}</th></tr></thead>
<tbody>${view.items.map((s) => html`<tr><td><a href="/dashboard/bankslips/${s.id}">${s.payerName}</a></td><td class="num">${reais(s.value)}</td><td>${date(s.dueDate)}</td><td>${date(s.effectivePaymentDate)}</td><td>${date(s.effectiveCreditDate)}</td><td>${slipBadge(page, s.statusBill)}</td></tr>`)}</tbody></table></div>`
  : html`<p>${c.noRows}</p>`}
${pager(page.lang, first, view.nextHref, view.onFirst)}`,
  );
}

function renderDetail(page: PageContext, s: BankSlipDetail): string {
  const t = slipWords(page.lang);
  const c = common(page.lang);
  const o = s.overdue;
  return layout(
    page,
    `${t.title}: ${s.payerName} · ${reais(s.value)}`,
    html`<p><a href="/dashboard/bankslips">${c.back}</a></p>
<div class="card"><dl class="facts">
<dt>${c.status}</dt><dd>${slipBadge(page, s.statusBill)}</dd>
<dt>${c.amount}</dt><dd>${reais(s.value)}</dd>
<dt>${t.issue}</dt><dd>${date(s.issueDate)}</dd>
<dt>${t.due}</dt><dd>${date(s.dueDate)}</dd>
${s.effectivePaymentDate ? html`<dt>${t.payment}</dt><dd>${date(s.effectivePaymentDate)}</dd><dt>${t.paid}</dt><dd>${reais(s.effectivePaymentValue)}</dd>` : ''}
${s.effectiveCreditDate ? html`<dt>${t.credit}</dt><dd>${date(s.effectiveCreditDate)}</dd>` : ''}
<dt>${t.payer}</dt><dd>${s.payerName}</dd>
<dt>${t.document}</dt><dd>${s.payerDocument}</dd>
${s.ourNumber ? html`<dt>${t.ourNumber}</dt><dd><code>${s.ourNumber}</code></dd>` : ''}
${s.digitableLine ? html`<dt>${t.line}</dt><dd><code>${s.digitableLine}</code> <button type="button" class="secondary" data-copy="${s.digitableLine}" data-copied-label="${c.copied}">${c.copy}</button></dd>` : ''}
${s.barCode ? html`<dt>${t.barCode}</dt><dd><code>${s.barCode}</code></dd>` : ''}
${s.pixEmv ? html`<dt>${t.pix}</dt><dd><code>${s.pixEmv}</code> <button type="button" class="secondary" data-copy="${s.pixEmv}" data-copied-label="${c.copied}">${c.copy}</button></dd>` : ''}
${s.referenceCode ? html`<dt>${t.reference}</dt><dd>${s.referenceCode}</dd>` : ''}
<dt>${t.overdue}</dt><dd>${o.allow ? t.overdueUntil.replace('{date}', date(o.dateLimit)).replace('{penalty}', String(o.penaltyPercent).replace('.', ',')).replace('{interest}', String(o.interestPercentPerMonth).replace('.', ',')) : t.notAllowed}</dd>
${s.message ? html`<dt>${t.failure}</dt><dd>${s.message}</dd>` : ''}
</dl></div>
${s.barCode ? html`<p><a class="button" href="/dashboard/bankslips/${s.id}/pdf">${t.pdf}</a></p>` : html`<p class="muted">${t.noPdf}</p>`}`,
  );
}
