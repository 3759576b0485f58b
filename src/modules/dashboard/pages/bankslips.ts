import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardServices } from '../services.js';
import { addDays, toIsoDate } from '../../../domain/calendar.js';
import { DomainError, type ErrorItem } from '../../../domain/errors.js';
import { STATUS_OF } from '../../../http/errors.js';
import { html } from '../../../http/html.js';
import { renderSlipPdf } from '../../bankslips/pdf.js';
import { CancelBody, type BankSlipDetail, type BankSlipListRecord } from '../../bankslips/schemas.js';
import { date, dateTime, reais } from '../format.js';
import { apiSchemaCheck, formProblems, formSchema } from '../forms.js';
import { pageOf, requireMerchant, requireScope, seeOther, sendPage, type DashboardDeps } from '../http.js';
import { bilingual, common } from '../i18n.js';
import { csrfField, layout, type PageContext } from '../layout.js';
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
const DoneQuery = Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) });
/** The cancel form's reason (optional); its length is the API body's rule (CancelBody), refused on the page. */
const CancelForm = formSchema({ reason: Type.Optional(Type.String({ maxLength: 1000 })) });
const checkCancelBody = apiSchemaCheck(CancelBody);

/** The detail page, with the refusal of a form posted to it when there is one (its status and the API's error array). */
async function showSlip(request: FastifyRequest, reply: FastifyReply, ctx: DashboardServices, deps: DashboardDeps, refusal?: { status: number; errors: ErrorItem[] }) {
  const principal = requireMerchant(request);
  requireScope(principal, 'integration');
  const slip = await ctx.bankSlips.information(principal.merchantId, (request.params as { id: string }).id.toLowerCase());
  const done = refusal ? undefined : (request.query as { done?: string }).done;
  return sendPage(reply, refusal?.status ?? 200, renderDetail(pageOf(request, deps), slip, done === 'canceled', refusal?.errors));
}

/**
 * GET /dashboard/bankslips (the integration API's three listings, a page at a time), its detail
 * (BankSlipService.information) and its PDF (BankSlipService.printable, as the API's pdf route).
 * Bank slips belong to the integration API: its scope is required, as its token would need.
 */
export function bankSlipPages(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
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
      if (!(error instanceof DomainError) || error.kind !== 'invalid') throw error;
      return sendPage(reply, 400, renderList(page, { ...view, items: [], onFirst: true, errors: error.errors.map((e) => e.description) }));
    }
  });

  scope.get('/bankslips/:id', { schema: { hide: true, params: IdParams, querystring: DoneQuery } }, async (request, reply) => showSlip(request, reply, ctx, deps));

  // The same call as POST {integration}/api/billissuer/{id}/cancel (BankSlipService.cancel with the
  // session's merchant). A refusal (paid, already cancelled, a reason too long) is shown on the slip's page.
  scope.post('/bankslips/:id/cancel', { schema: { hide: true, params: IdParams, body: CancelForm }, attachValidation: true }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'integration');
    const id = (request.params as { id: string }).id.toLowerCase();
    const problems = formProblems(request, CancelForm);
    if (problems.length > 0) return showSlip(request, reply, ctx, deps, { status: 400, errors: problems });
    const typed = (request.body as Static<typeof CancelForm>).reason?.trim();
    const body = typed ? { reason: typed } : {};
    try {
      checkCancelBody(body);
      await ctx.bankSlips.cancel(principal.merchantId, id, body.reason);
    } catch (error) {
      // 404 (not theirs) stays the error page.
      if (error instanceof DomainError && (error.kind === 'invalid' || error.kind === 'conflict')) return showSlip(request, reply, ctx, deps, { status: STATUS_OF[error.kind], errors: error.errors });
      throw error;
    }
    return seeOther(reply, `/dashboard/bankslips/${id}?done=canceled`);
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
    canceledAt: 'Cancelado em',
    cancelReason: 'Motivo do cancelamento',
    cancelTitle: 'Cancelar o boleto',
    cancelHelp: 'O boleto deixa de poder ser pago e a remessa do dia pede a baixa ao banco.',
    reasonLabel: 'Motivo (opcional)',
    cancel: 'Cancelar o boleto',
    cancelConfirm: 'Cancelar este boleto de {amount}? Ele não poderá mais ser pago.',
    canceled: 'Boleto cancelado.',
    cancelledBadge: 'Cancelado',
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
    canceledAt: 'Cancelled on',
    cancelReason: 'Why it was cancelled',
    cancelTitle: 'Cancel the slip',
    cancelHelp: "The slip can no longer be paid, and the day's remittance asks the bank to write it off.",
    reasonLabel: 'Reason (optional)',
    cancel: 'Cancel the slip',
    cancelConfirm: 'Cancel this slip of {amount}? It can no longer be paid.',
    canceled: 'Slip cancelled.',
    cancelledBadge: 'Cancelled',
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

/** Unpaid and not cancelled: statusBill 1, 2 or 9 (the API's cancel answers 409 otherwise). */
const cancellable = (s: BankSlipDetail) => s.CancelDate === null && [1, 2, 9].includes(s.statusBill);

function renderDetail(page: PageContext, s: BankSlipDetail, canceled = false, errors?: ErrorItem[]): string {
  const t = slipWords(page.lang);
  const c = common(page.lang);
  const o = s.overdue;
  return layout(
    page,
    `${t.title}: ${s.payerName} · ${reais(s.value)}`,
    html`${flash(canceled ? t.canceled : undefined, errors?.map((e) => `${e.tag}: ${e.description}`))}
<p><a href="/dashboard/bankslips">${c.back}</a></p>
<div class="card"><dl class="facts">
<dt>${c.status}</dt><dd id="slip-status">${slipBadge(page, s.statusBill)}${s.CancelDate ? html` ${badge(t.cancelledBadge, 'bad')}` : ''}</dd>
${s.CancelDate ? html`<dt>${t.canceledAt}</dt><dd>${dateTime(s.CancelDate)}</dd><dt>${t.cancelReason}</dt><dd id="cancel-reason">${s.CancellationReason ?? ''}</dd>` : ''}
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
${s.CancelDate ? '' : s.barCode ? html`<p><a class="button" href="/dashboard/bankslips/${s.id}/pdf">${t.pdf}</a></p>` : html`<p class="muted">${t.noPdf}</p>`}
${cancellable(s)
  ? html`<section class="card" aria-labelledby="cancel-title"><h2 id="cancel-title">${t.cancelTitle}</h2><p class="muted">${t.cancelHelp}</p>
<form method="post" action="/dashboard/bankslips/${s.id}/cancel" data-confirm="${t.cancelConfirm.replace('{amount}', reais(s.value))}">${csrfField(page)}
<label for="cancel-reason-input">${t.reasonLabel}</label> <input id="cancel-reason-input" name="reason" maxlength="200" autocomplete="off">
<button type="submit" class="danger">${t.cancel}</button></form></section>`
  : ''}`,
  );
}
