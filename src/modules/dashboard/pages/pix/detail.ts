import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardServices } from '../../services.js';
import { DomainError, type ErrorItem } from '../../../../domain/errors.js';
import { STATUS_OF } from '../../../../http/errors.js';
import { html } from '../../../../http/html.js';
import type { DisputeSummary } from '../../../disputes/schemas.js';
import { PixChargeParams, PixRefundBody } from '../../../pix/schemas.js';
import type { PixService } from '../../../pix/service.js';
import type { toPixRefund } from '../../../pix/refunds.js';
import { brl, date, dateTime } from '../../format.js';
import { apiSchemaCheck, centsOfReais, formProblems, formSchema, reaisField } from '../../forms.js';
import { pageOf, requireMerchant, requireScope, seeOther, sendPage, type DashboardDeps } from '../../http.js';
import { bilingual, common } from '../../i18n.js';
import { csrfField, layout, type PageContext } from '../../layout.js';
import { flash } from '../../lists.js';
import { disputeBadge } from '../disputes/status.js';
import { pixBadge } from './status.js';

const DoneQuery = Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) });

/**
 * The refund form: the amount in reais (blank: what is left) and the message to the payer. The
 * reason's length is the API's rule (PixRefundBody, checked below): the form takes more, so that
 * an over-long reason is refused on the page in the API's words rather than as a malformed request.
 */
const RefundForm = formSchema({ amount: reaisField(), reason: Type.Optional(Type.String({ maxLength: 1000 })) });
const checkRefundBody = apiSchemaCheck(PixRefundBody);

type ChargeView = Awaited<ReturnType<PixService['detail']>>;
type RefundView = ReturnType<typeof toPixRefund>;

/** The charge's page, with the refusal of a refund posted to it when there is one (its status and the API's error array). */
async function showCharge(request: FastifyRequest, reply: FastifyReply, ctx: DashboardServices, deps: DashboardDeps, refusal?: { status: number; errors: ErrorItem[] }) {
  const p = requireMerchant(request);
  requireScope(p, 'payments');
  const { id } = request.params as { id: string };
  // Read with the merchant's id: another merchant's charge is a 404.
  const charge = await ctx.pix.detail(p.merchantId, id);
  const [refunds, claims] = await Promise.all([ctx.pix.refunds.list(p.merchantId, id), ctx.disputes.ofPixCharge(p.merchantId, id)]);
  const notice = refusal ? undefined : (request.query as { done?: string }).done;
  return sendPage(reply, refusal?.status ?? 200, render(pageOf(request, deps), { charge, refunds: refunds.items, claims, notice, errors: refusal?.errors }));
}

/**
 * GET /dashboard/pix/:id (the charge, its refunds, its MED claims, the copy-and-paste code) and
 * its refund form: the same call as POST {gateway}/v1/pix/charges/{id}/refunds, with the API's
 * scope; the service's refusals (over-refund, a charge not Paid) are shown beside the form.
 */
export function pixDetailPage(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
  scope.get('/pix/:id', { schema: { hide: true, params: PixChargeParams, querystring: DoneQuery } }, async (request, reply) => showCharge(request, reply, ctx, deps));

  scope.post('/pix/:id/refunds', { schema: { hide: true, params: PixChargeParams, body: RefundForm }, attachValidation: true }, async (request, reply) => {
    const p = requireMerchant(request);
    requireScope(p, 'payments');
    const { id } = request.params as { id: string };
    const problems = formProblems(request, RefundForm);
    if (problems.length > 0) return showCharge(request, reply, ctx, deps, { status: 400, errors: problems });
    const form = request.body as Static<typeof RefundForm>;
    const amount = centsOfReais(form.amount);
    const reason = form.reason?.trim();
    const body = { ...(amount === undefined ? {} : { amount }), ...(reason ? { reason } : {}) };
    let status: string;
    try {
      checkRefundBody(body);
      status = (await ctx.pix.refunds.create(p.merchantId, id, body)).status;
    } catch (error) {
      // 404 (not theirs) stays the error page; a refusal of this charge's refund is shown on it.
      if (error instanceof DomainError && (error.kind === 'invalid' || error.kind === 'conflict')) return showCharge(request, reply, ctx, deps, { status: STATUS_OF[error.kind], errors: error.errors });
      throw error;
    }
    return seeOther(reply, `/dashboard/pix/${id}?done=refund${status}`);
  });
}

const words = bilingual(
  {
    charge: 'Cobrança Pix',
    back: 'Voltar às cobranças Pix',
    description: 'Descrição',
    reference: 'Referência',
    expires: 'Expira em',
    paidAt: 'Paga em',
    paidAmount: 'Valor pago',
    dueDate: 'Vencimento (dias de validade após)',
    payer: 'Pagador',
    terms: 'Condições',
    fine: 'multa',
    interest: 'juros ao mês',
    discount: 'desconto',
    refunded: 'Devolvido',
    held: 'Retido por contestação MED',
    code: 'Pix copia e cola',
    copyCode: 'Copiar o código',
    claims: 'Contestações MED',
    claim: 'Contestação',
    respondBy: 'Prazo',
    refunds: 'Devoluções',
    noRefunds: 'Nenhuma devolução desta cobrança.',
    nature: 'Natureza',
    reason: 'Mensagem ao pagador',
    statusReason: 'Motivo da situação',
    updated: 'Atualizada em',
    refundAmount: 'Valor a devolver (R$; em branco: o que resta, {left})',
    refundReason: 'Mensagem ao pagador (opcional)',
    refund: 'Devolver',
    refundConfirm: 'Devolver este valor ao pagador?',
    refundReturned: 'Devolução feita.',
    refundInProcess: 'Devolução enviada; aguardando a resposta do PSP.',
    refundNotDone: 'O PSP não realizou a devolução; nada foi devolvido.',
    ORIGINAL: 'Devolução do lojista',
    MED_FRAUDE: 'MED: fraude',
    MED_OPERACIONAL: 'MED: falha operacional',
  },
  {
    charge: 'Pix charge',
    back: 'Back to Pix charges',
    description: 'Description',
    reference: 'Reference',
    expires: 'Expires',
    paidAt: 'Paid',
    paidAmount: 'Amount paid',
    dueDate: 'Due date (days payable after)',
    payer: 'Payer',
    terms: 'Terms',
    fine: 'fine',
    interest: 'interest a month',
    discount: 'discount',
    refunded: 'Refunded',
    held: 'Held by a MED claim',
    code: 'Pix copy and paste',
    copyCode: 'Copy the code',
    claims: 'MED claims',
    claim: 'Claim',
    respondBy: 'Deadline',
    refunds: 'Refunds',
    noRefunds: 'No refund of this charge.',
    nature: 'Nature',
    reason: 'Message to the payer',
    statusReason: 'Status reason',
    updated: 'Updated',
    refundAmount: 'Amount to refund (R$; blank: what is left, {left})',
    refundReason: 'Message to the payer (optional)',
    refund: 'Refund',
    refundConfirm: 'Return this amount to the payer?',
    refundReturned: 'Refund done.',
    refundInProcess: "Refund sent; waiting for the PSP's answer.",
    refundNotDone: 'The PSP did not make the return; nothing was returned.',
    ORIGINAL: "Merchant's refund",
    MED_FRAUDE: 'MED: fraud',
    MED_OPERACIONAL: 'MED: operational failure',
  },
);

/** The notice of each `?done=` the refund form redirects to (a refund's status after the call). */
const NOTICES: Record<string, 'refundReturned' | 'refundInProcess' | 'refundNotDone'> = {
  refundReturned: 'refundReturned',
  refundInProcess: 'refundInProcess',
  refundNotDone: 'refundNotDone',
};
const NATURES = ['ORIGINAL', 'MED_FRAUDE', 'MED_OPERACIONAL'] as const;

interface View {
  charge: ChargeView;
  refunds: RefundView[];
  claims: DisputeSummary[];
  notice?: string;
  errors?: ErrorItem[];
}

/** A charge with a due date: the date, how long after it it is payable, the payer and the terms. */
function dueFacts(t: ReturnType<typeof words>, p: ChargeView) {
  const terms = [p.fine ? `${t.fine} ${String(p.fine).replace('.', ',')}%` : '', p.interest ? `${t.interest} ${String(p.interest).replace('.', ',')}%` : '', p.discount ? `${t.discount} ${brl(BigInt(p.discount.amount))} (${date(p.discount.until)})` : '']
    .filter(Boolean)
    .join(' · ');
  return html`<dt>${t.dueDate}</dt><dd id="due-date">${date(p.dueDate!)} (+${p.validAfterDueDays ?? 0})</dd>
<dt>${t.payer}</dt><dd>${p.payer?.name ?? ''} · ${p.payer?.documentNumber ?? ''}</dd>
${terms ? html`<dt>${t.terms}</dt><dd id="due-terms">${terms}</dd>` : ''}`;
}

function render(page: PageContext, view: View): string {
  const t = words(page.lang);
  const c = common(page.lang);
  const p = view.charge;
  const facts = html`<section class="card" aria-labelledby="facts-title"><h2 id="facts-title">${t.charge}</h2><dl class="facts" id="facts">
<dt>${c.status}</dt><dd id="charge-status">${pixBadge(page.lang, p.status)}</dd>
<dt>${c.amount}</dt><dd>${brl(BigInt(p.amount))}</dd>
${p.paidAt ? html`<dt>${t.paidAt}</dt><dd>${dateTime(p.paidAt)}</dd>` : ''}
${p.paidAmount !== null && p.paidAmount !== p.amount ? html`<dt>${t.paidAmount}</dt><dd id="paid-amount">${brl(BigInt(p.paidAmount))}</dd>` : ''}
${p.dueDate ? dueFacts(t, p) : ''}
<dt>${t.refunded}</dt><dd id="refunded-amount">${brl(BigInt(p.refundedAmount))}</dd>
${p.medHeldAmount > 0 ? html`<dt>${t.held}</dt><dd id="med-held">${brl(BigInt(p.medHeldAmount))}</dd>` : ''}
${p.description ? html`<dt>${t.description}</dt><dd>${p.description}</dd>` : ''}
${p.referenceTransaction ? html`<dt>${t.reference}</dt><dd>${p.referenceTransaction}</dd>` : ''}
<dt>txid</dt><dd><code>${p.txid}</code></dd>
<dt>${c.created}</dt><dd>${dateTime(p.createdAt)}</dd>
<dt>${t.expires}</dt><dd>${dateTime(p.expiresAt)}</dd>
</dl></section>`;

  // Each claim, open or closed, links to its dispute page (evidence, acceptance).
  const claims = view.claims.length
    ? html`<section class="card" aria-labelledby="claims-title"><h2 id="claims-title">${t.claims}</h2>
<div class="table-wrap" tabindex="0" role="region" aria-labelledby="claims-title"><table id="med-claims"><thead><tr><th scope="col">${t.claim}</th><th scope="col">${c.status}</th><th scope="col" class="num">${c.amount}</th><th scope="col">${t.respondBy}</th><th scope="col">${c.created}</th></tr></thead>
<tbody>${view.claims.map((d) => html`<tr><th scope="row"><a href="/dashboard/disputes/${d.disputeId}">${d.reasonCode} · ${d.reasonMessage}</a></th><td>${disputeBadge(page.lang, d.status)}</td><td class="num">${brl(BigInt(d.amount))}</td><td>${date(d.respondBy)}</td><td>${dateTime(d.createdAt)}</td></tr>`)}</tbody></table></div>
</section>`
    : '';

  const nature = (n: string) => ((NATURES as readonly string[]).includes(n) ? t[n as (typeof NATURES)[number]] : n);
  const refunds = html`<section class="card" aria-labelledby="refunds-title"><h2 id="refunds-title">${t.refunds}</h2>
${view.refunds.length === 0
  ? html`<p class="muted">${t.noRefunds}</p>`
  : html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="refunds-title"><table id="pix-refunds"><thead><tr><th scope="col">refundId</th><th scope="col">${c.created}</th><th scope="col" class="num">${c.amount}</th><th scope="col">${c.status}</th><th scope="col">${t.nature}</th><th scope="col">${t.reason}</th><th scope="col">${t.statusReason}</th><th scope="col">${t.updated}</th></tr></thead>
<tbody>${view.refunds.map((r) => html`<tr><th scope="row" class="mono">${r.refundId}</th><td>${dateTime(r.createdAt)}</td><td class="num">${brl(BigInt(r.amount))}</td><td>${pixBadge(page.lang, r.status)}</td><td>${nature(r.nature)}</td><td>${r.reason ?? ''}</td><td>${r.statusReason ?? ''}</td><td>${dateTime(r.updatedAt)}</td></tr>`)}</tbody></table></div>`}
${p.status === 'Paid' && p.refundable > 0
  ? html`<form method="post" action="/dashboard/pix/${p.id}/refunds" data-confirm="${t.refundConfirm}">${csrfField(page)}
<label for="refund-amount">${t.refundAmount.replace('{left}', brl(BigInt(p.refundable)))}</label> <input id="refund-amount" name="amount" inputmode="decimal" autocomplete="off">
<label for="refund-reason">${t.refundReason}</label> <input id="refund-reason" name="reason" maxlength="140" autocomplete="off">
<button type="submit" class="danger">${t.refund}</button></form>`
  : ''}
</section>`;

  const code = html`<section class="card" aria-labelledby="code-title"><h2 id="code-title">${t.code}</h2><p><code id="pix-code">${p.pixEmv}</code></p>
<button type="button" data-copy="${p.pixEmv}" data-copied-label="${c.copied}">${t.copyCode}</button></section>`;

  return layout(
    page,
    `${t.charge} · ${brl(BigInt(p.amount))}`,
    html`${flash(NOTICES[view.notice ?? ''] ? t[NOTICES[view.notice ?? '']] : undefined, view.errors?.map((e) => `${e.tag}: ${e.description}`))}
<p><a href="/dashboard/pix">${t.back}</a></p>
${facts}${claims}${refunds}${code}`,
  );
}
