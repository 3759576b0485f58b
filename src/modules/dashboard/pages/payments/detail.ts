import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../../context.js';
import { DomainError } from '../../../../domain/errors.js';
import { ApiError, httpOf, type ErrorItem } from '../../../../http/errors.js';
import { html } from '../../../../http/html.js';
import type { PaymentDetail } from '../../../payments/read-models.js';
import { RefundBody, type RefundResult } from '../../../payments/schemas.js';
import type { Delivery } from '../../../webhooks/schemas.js';
import { brl, d4ToCents, date, dateTime } from '../../format.js';
import { apiSchemaCheck, centsOfReais, formProblems, formSchema, reaisField } from '../../forms.js';
import { pageOf, requireMerchant, seeOther, sendPage, type DashboardDeps } from '../../http.js';
import { bilingual, common, langOf } from '../../i18n.js';
import { csrfField, layout, type PageContext } from '../../layout.js';
import { flash } from '../../lists.js';
import { PAYMENT_ID, statusBadge, statusLabel } from './status.js';

const IdParams = Type.Object({ id: Type.String({ maxLength: 200 }) });
const DoneQuery = Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) });

/** An id that is no UUID is no payment: the 404 of anything not found, never a query. */
function paymentIdOf(request: FastifyRequest): string {
  const { id } = request.params as { id: string };
  if (!PAYMENT_ID.test(id)) throw new ApiError(404, 'not_found', common(langOf(request)).notFound);
  return id;
}

/** The refund form: the amount in reais (blank: what is left, as the API's optional amount). */
const RefundForm = formSchema({ amount: reaisField() });
const checkRefundBody = apiSchemaCheck(RefundBody);

/** The page, with the refusal of a form posted to it when there is one (its status and the API's error array). */
async function showPayment(request: FastifyRequest, reply: FastifyReply, ctx: AppContext, deps: DashboardDeps, refusal?: { status: number; errors: ErrorItem[] }) {
  const p = requireMerchant(request);
  const id = paymentIdOf(request);
  // PaymentService.detail reads by the merchant's id: another merchant's payment is a 404.
  const detail = await ctx.payments.reads.detail(p.merchantId, id);
  const moments = [detail.payment.createdAt, ...detail.events.map((e) => e.at)];
  const [installments, deliveries, refunds] = await Promise.all([
    ctx.settlement.installmentsOf(p.accountNumber, id),
    ctx.webhooks.deliveriesOfPayment(p.accountNumber, { paymentId: id, nsu: detail.payment.nsu }, moments),
    ctx.payments.refunds.list(p.merchantId, id),
  ]);
  const done = refusal ? undefined : (request.query as { done?: string }).done;
  const view = { detail, installments: installments as InstallmentView[], deliveries, refunds: refunds.items, notice: done, errors: refusal?.errors };
  return sendPage(reply, refusal?.status ?? 200, render(pageOf(request, deps), view));
}

/**
 * GET /dashboard/payments/:id (the facts, the timeline, the refunds, the installments and the
 * notifications of one payment), its cancel form and its refund form: the same calls as the API's.
 */
export function paymentDetailPage(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  scope.get('/payments/:id', { schema: { hide: true, params: IdParams, querystring: DoneQuery } }, async (request, reply) => showPayment(request, reply, ctx, deps));

  // The same call as POST {gateway}/v1/payments/{id}/cancel: PaymentService.cancel with the principal's merchantId.
  scope.post('/payments/:id/cancel', { schema: { hide: true, params: IdParams, body: formSchema({}) } }, async (request, reply) => {
    const p = requireMerchant(request);
    const id = paymentIdOf(request);
    await ctx.payments.cancel(p.merchantId, id);
    return seeOther(reply, `/dashboard/payments/${id}?done=canceled`);
  });

  // The same call as POST {gateway}/v1/payments/{id}/refunds. A refusal is shown on the payment's
  // own page, beside the form, so the merchant sees what is left and tries again.
  scope.post('/payments/:id/refunds', { schema: { hide: true, params: IdParams, body: RefundForm }, attachValidation: true }, async (request, reply) => {
    const p = requireMerchant(request);
    const id = paymentIdOf(request);
    const problems = formProblems(request, RefundForm);
    if (problems.length > 0) return showPayment(request, reply, ctx, deps, { status: 400, errors: problems });
    const amount = centsOfReais((request.body as Static<typeof RefundForm>).amount);
    const body = amount === undefined ? {} : { amount };
    let refund: RefundResult;
    try {
      checkRefundBody(body);
      refund = await ctx.payments.refunds.create(p.merchantId, id, body);
    } catch (error) {
      // 404 (not theirs) stays the error page; a refusal of this payment's refund is shown on it.
      if (error instanceof DomainError && (error.kind === 'invalid' || error.kind === 'conflict')) return showPayment(request, reply, ctx, deps, { status: httpOf(error).status, errors: error.errors });
      throw error;
    }
    return seeOther(reply, `/dashboard/payments/${id}?done=refund${refund.status}`);
  });
}

const strings = bilingual(
  {
    title: 'Pagamento',
    facts: 'Dados do pagamento',
    paymentId: 'Identificador (paymentId)',
    amount: 'Valor',
    installments: 'Parcelas',
    status: 'Status',
    card: 'Cartão',
    brand: 'Bandeira',
    customer: 'Cliente',
    document: 'Documento',
    reference: 'Referência',
    threeDs: '3-D Secure',
    threeDsValue: '{status}, ECI {eci}, versão {version}',
    liability: 'Responsabilidade por fraude',
    liabilityShifted: 'do emissor (transferida)',
    liabilityMerchant: 'do lojista',
    timeline: 'Linha do tempo',
    created: 'Pagamento criado: {amount} em {n}x',
    antifraud: 'Antifraude: {decision}, pontuação {score}',
    reasons: 'Motivos',
    noReasons: 'nenhum',
    acquirer: 'Resposta da adquirente: código {code} ({message})',
    authorization: 'Autorização {code}, NSU {nsu}',
    waiting: 'Aguardando a resposta da adquirente.',
    event: 'Status: {from} → {to}',
    newStatus: 'novo',
    receivables: 'Parcelas e recebíveis',
    number: 'Parcela',
    value: 'Valor da parcela',
    expected: 'Previsão',
    received: 'Recebido em',
    net: 'Valor líquido',
    installmentStatus: 'Situação',
    noReceivables: 'Este pagamento não tem recebíveis.',
    deliveries: 'Notificações (webhooks e callbacks)',
    movement: 'movementId',
    type: 'Tipo',
    channel: 'Canal',
    deliveryStatus: 'Entrega',
    attempts: 'Tentativas',
    lastAnswer: 'Última resposta',
    noDeliveries: 'Nenhuma notificação deste pagamento.',
    cancel: 'Cancelar pagamento',
    cancelConfirm: 'Cancelar este pagamento de {amount}? O valor inteiro será estornado.',
    canceled: 'Pagamento cancelado.',
    back: 'Voltar aos pagamentos',
    refunded: 'Estornado',
    refunds: 'Estornos',
    refundAmount: 'Valor a estornar (R$; em branco: o que resta, {left})',
    refund: 'Estornar',
    refundConfirm: 'Estornar este valor do pagamento?',
    noRefunds: 'Nenhum estorno deste pagamento.',
    refundSucceeded: 'Estorno feito.',
    refundPending: 'Estorno enviado; aguardando a resposta da adquirente.',
    refundFailed: 'A adquirente recusou o estorno; nada foi estornado.',
    refundStatus: 'Situação',
    refundMessage: 'Mensagem',
  },
  {
    title: 'Payment',
    facts: 'Payment facts',
    paymentId: 'Identifier (paymentId)',
    amount: 'Amount',
    installments: 'Installments',
    status: 'Status',
    card: 'Card',
    brand: 'Brand',
    customer: 'Customer',
    document: 'Document',
    reference: 'Reference',
    threeDs: '3-D Secure',
    threeDsValue: '{status}, ECI {eci}, version {version}',
    liability: 'Fraud liability',
    liabilityShifted: "the issuer's (shifted)",
    liabilityMerchant: "the merchant's",
    timeline: 'Timeline',
    created: 'Payment created: {amount} in {n}x',
    antifraud: 'Anti-fraud: {decision}, score {score}',
    reasons: 'Reasons',
    noReasons: 'none',
    acquirer: 'Acquirer answer: code {code} ({message})',
    authorization: 'Authorization {code}, NSU {nsu}',
    waiting: 'Waiting for the acquirer answer.',
    event: 'Status: {from} → {to}',
    newStatus: 'new',
    receivables: 'Installments and receivables',
    number: 'Installment',
    value: 'Installment value',
    expected: 'Expected',
    received: 'Received on',
    net: 'Net value',
    installmentStatus: 'State',
    noReceivables: 'This payment has no receivables.',
    deliveries: 'Notifications (webhooks and callbacks)',
    movement: 'movementId',
    type: 'Type',
    channel: 'Channel',
    deliveryStatus: 'Delivery',
    attempts: 'Attempts',
    lastAnswer: 'Last answer',
    noDeliveries: 'No notification of this payment.',
    cancel: 'Cancel payment',
    cancelConfirm: 'Cancel this payment of {amount}? The whole amount is refunded.',
    canceled: 'Payment canceled.',
    back: 'Back to payments',
    refunded: 'Refunded',
    refunds: 'Refunds',
    refundAmount: 'Amount to refund (R$; blank: what is left, {left})',
    refund: 'Refund',
    refundConfirm: 'Refund this amount of the payment?',
    noRefunds: 'No refund of this payment.',
    refundSucceeded: 'Refund done.',
    refundPending: "Refund sent; waiting for the acquirer's answer.",
    refundFailed: 'The acquirer refused the refund; nothing was refunded.',
    refundStatus: 'Status',
    refundMessage: 'Message',
  },
);

/** An installment as settlement's conciliation record shows it (the fields this page uses). */
interface InstallmentView {
  installmentNumber: number;
  installmentValue: number;
  receivedValue: number;
  receivedDateForeast: string;
  receivedDateEffective: string | null;
  installmentStatus: string;
  receivedStatus: string;
  receivedType: string;
}

interface PaymentDetailView {
  detail: PaymentDetail;
  installments: InstallmentView[];
  deliveries: Delivery[];
  refunds: RefundResult[];
  notice?: string;
  errors?: ErrorItem[];
}

/** A 10,4 JSON decimal of the conciliation record (at most 4 decimals, so *10,000 is exact after rounding) in reais, half up to the cent. */
const money = (v: number) => brl(d4ToCents(BigInt(Math.round(v * 10_000))));

const INSTALLMENT_STATE: Record<string, [string, string]> = { A: ['Aprovada', 'Approved'], B: ['Bloqueada', 'Blocked'], C: ['Cancelada', 'Canceled'] };

/** The notice of each `?done=` a form of this page redirects to. */
const NOTICES: Record<string, 'canceled' | 'refundSucceeded' | 'refundPending' | 'refundFailed'> = {
  canceled: 'canceled',
  refundSucceeded: 'refundSucceeded',
  refundPending: 'refundPending',
  refundFailed: 'refundFailed',
};

function render(page: PageContext, view: PaymentDetailView): string {
  const t = strings(page.lang);
  const { payment: p, customer, antiFraudReasons, events } = view.detail;
  const amount = brl(BigInt(p.amount));
  const state = (i: InstallmentView) => {
    if (i.installmentStatus === 'A' && i.receivedStatus === 'P') return page.lang === 'en' ? 'Received' : 'Recebida';
    return INSTALLMENT_STATE[i.installmentStatus]?.[page.lang === 'en' ? 1 : 0] ?? i.installmentStatus;
  };
  const facts = html`<section class="card" aria-labelledby="facts-title"><h2 id="facts-title">${t.facts}</h2><dl class="facts" id="facts">
<dt>${t.paymentId}</dt><dd class="mono">${p.paymentId}</dd>
<dt>${t.amount}</dt><dd>${amount}</dd>
<dt>${t.refunded}</dt><dd id="refunded-amount">${brl(BigInt(p.refundedAmount))}</dd>
<dt>${t.installments}</dt><dd>${p.installments}</dd>
<dt>${t.status}</dt><dd id="payment-status">${statusBadge(page.lang, p.status)}</dd>
<dt>${t.card}</dt><dd class="mono">${p.maskedCardNumber}</dd>
<dt>${t.brand}</dt><dd>${p.brand}</dd>
<dt>${t.reference}</dt><dd>${p.referenceTransaction ?? '-'}</dd>
${p.threeDs
  ? html`<dt>${t.threeDs}</dt><dd id="three-ds">${t.threeDsValue.replace('{status}', p.threeDs.status).replace('{eci}', p.threeDs.eci ?? '-').replace('{version}', p.threeDs.version ?? '-')}</dd><dt>${t.liability}</dt><dd id="liability-shift">${p.threeDs.liabilityShift ? t.liabilityShifted : t.liabilityMerchant}</dd>`
  : ''}
${customer ? html`<dt>${t.customer}</dt><dd>${customer.name ?? '-'}</dd><dt>${t.document}</dt><dd class="mono">${customer.document ?? '-'}</dd>` : ''}
</dl>
${p.status === 'Authorized' || p.status === 'Blocked'
  ? html`<form method="post" action="/dashboard/payments/${p.paymentId}/cancel" data-confirm="${t.cancelConfirm.replace('{amount}', amount)}">${csrfField(page)}<button type="submit" class="danger">${t.cancel}</button></form>`
  : ''}
</section>`;

  const left = p.amount - p.refundedAmount;
  const refundable = (p.status === 'Authorized' || p.status === 'Paid') && left > 0;
  const refunds = html`<section class="card" aria-labelledby="refunds-title"><h2 id="refunds-title">${t.refunds}</h2>
${view.refunds.length === 0
  ? html`<p class="muted">${t.noRefunds}</p>`
  : html`<div class="table-wrap"><table id="refunds"><thead><tr><th scope="col">refundId</th><th scope="col">${common(page.lang).created}</th><th scope="col" class="num">${t.amount}</th><th scope="col">${t.refundStatus}</th><th scope="col">${t.refundMessage}</th></tr></thead>
<tbody>${view.refunds.map((r) => html`<tr><th scope="row" class="mono">${r.refundId}</th><td>${dateTime(r.createdAt)}</td><td class="num">${brl(BigInt(r.amount))}</td><td>${r.status}</td><td>${r.returnMessage ?? ''}</td></tr>`)}</tbody></table></div>`}
${refundable
  ? html`<form method="post" action="/dashboard/payments/${p.paymentId}/refunds" data-confirm="${t.refundConfirm}">${csrfField(page)}
<label for="refund-amount">${t.refundAmount.replace('{left}', brl(BigInt(left)))}</label> <input id="refund-amount" name="amount" inputmode="decimal" autocomplete="off">
<button type="submit" class="danger">${t.refund}</button></form>`
  : ''}
</section>`;

  const answered = p.returnCode !== null;
  const timeline = html`<section class="card" aria-labelledby="timeline-title"><h2 id="timeline-title">${t.timeline}</h2><ol class="timeline" id="timeline">
<li><time datetime="${p.createdAt}">${dateTime(p.createdAt)}</time> ${t.created.replace('{amount}', amount).replace('{n}', String(p.installments))}</li>
<li>${t.antifraud.replace('{decision}', p.antiFraud.decision).replace('{score}', String(p.antiFraud.score))}. ${t.reasons}: ${antiFraudReasons.length ? antiFraudReasons.join(', ') : t.noReasons}</li>
<li>${answered ? html`${t.acquirer.replace('{code}', p.returnCode ?? '').replace('{message}', p.returnMessage ?? '')}${p.authorizationCode ? html`. ${t.authorization.replace('{code}', p.authorizationCode).replace('{nsu}', p.nsu ?? '-')}` : ''}` : t.waiting}</li>
${events.map((e) => html`<li><time datetime="${e.at}">${dateTime(e.at)}</time> ${t.event.replace('{from}', e.oldStatus ? statusLabel(page.lang, e.oldStatus) : t.newStatus).replace('{to}', statusLabel(page.lang, e.newStatus))}</li>`)}
</ol></section>`;

  const installments = html`<section class="card" aria-labelledby="receivables-title"><h2 id="receivables-title">${t.receivables}</h2>
${view.installments.length === 0
  ? html`<p class="muted">${t.noReceivables}</p>`
  : html`<div class="table-wrap"><table id="installments"><thead><tr><th scope="col" class="num">${t.number}</th><th scope="col" class="num">${t.value}</th><th scope="col" class="num">${t.net}</th><th scope="col">${t.expected}</th><th scope="col">${t.received}</th><th scope="col">${t.installmentStatus}</th></tr></thead>
<tbody>${view.installments.map((i) => html`<tr><th scope="row" class="num">${i.installmentNumber}/${p.installments}</th><td class="num">${money(i.installmentValue)}</td><td class="num">${money(i.receivedValue)}</td><td>${date(i.receivedDateForeast)}</td><td>${date(i.receivedDateEffective)}</td><td>${state(i)}</td></tr>`)}</tbody></table></div>`}
</section>`;

  const deliveries = html`<section class="card" aria-labelledby="deliveries-title"><h2 id="deliveries-title">${t.deliveries}</h2>
${view.deliveries.length === 0
  ? html`<p class="muted">${t.noDeliveries}</p>`
  : html`<div class="table-wrap"><table id="deliveries"><thead><tr><th scope="col" class="num">${t.movement}</th><th scope="col">${t.type}</th><th scope="col">${t.channel}</th><th scope="col">${t.deliveryStatus}</th><th scope="col" class="num">${t.attempts}</th><th scope="col">${t.lastAnswer}</th></tr></thead>
<tbody>${view.deliveries.map((d) => {
    const last = d.attempts[d.attempts.length - 1];
    return html`<tr><th scope="row" class="num">${d.movementId}</th><td>${d.type}</td><td>${d.channel}</td><td>${d.status}</td><td class="num">${d.attempts.length}</td><td>${last ? `${dateTime(last.at)} ${last.statusCode ?? last.error ?? ''}` : '-'}</td></tr>`;
  })}</tbody></table></div>`}
</section>`;

  return layout(
    page,
    `${t.title} ${p.referenceTransaction ?? p.paymentId}`,
    html`${flash(NOTICES[view.notice ?? ''] ? t[NOTICES[view.notice ?? '']] : undefined, view.errors?.map((e) => `${e.tag}: ${e.description}`))}
<p><a href="/dashboard/payments">${t.back}</a></p>
${facts}${refunds}${timeline}<div class="grid two">${installments}${deliveries}</div>`,
  );
}
