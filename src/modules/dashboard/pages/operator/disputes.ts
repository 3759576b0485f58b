import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../../context.js';
import { DomainError } from '../../../../domain/errors.js';
import { httpOf, type ErrorItem } from '../../../../http/errors.js';
import { html } from '../../../../http/html.js';
import { DisputeIdParams, RegisterDisputeBody, ResolveDisputeBody } from '../../../disputes/schemas.js';
import { brl, date, dateTime } from '../../format.js';
import { apiBody, apiSchemaCheck, formProblems, formSchema, wholeNumber, worded } from '../../forms.js';
import { requireOperator, seeOther, sendPage, type DashboardDeps } from '../../http.js';
import { bilingual } from '../../i18n.js';
import { csrfField, layout, type PageContext } from '../../layout.js';
import { flash } from '../../lists.js';
import { disputeBadge, isOpen } from '../disputes/status.js';

const DoneQuery = Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })), id: Type.Optional(Type.String({ maxLength: 36 })) });

/** POST /admin/disputes's body as a form: amount in cents (the API's unit), blank fields left out. */
const RegisterForm = formSchema({
  paymentId: worded(Type.String({ minLength: 1, maxLength: 36 }), (lang) => (lang === 'en' ? 'paymentId is required.' : 'paymentId é obrigatório.')),
  reasonCode: worded(Type.String({ minLength: 1, maxLength: 10 }), (lang) => (lang === 'en' ? 'reasonCode is required (e.g. 104, 4837, 83).' : 'reasonCode é obrigatório (p. ex. 104, 4837, 83).')),
  amount: wholeNumber('amount'),
  respondBy: worded(Type.Optional(Type.String({ maxLength: 10, pattern: '^([0-9]{4}-[0-9]{2}-[0-9]{2})?$' })), (lang) =>
    lang === 'en' ? 'respondBy must be a date (YYYY-MM-DD), or blank.' : 'respondBy deve ser uma data (AAAA-MM-DD), ou ficar em branco.',
  ),
});
const checkRegisterBody = apiSchemaCheck(RegisterDisputeBody);
const ResolveForm = formSchema({ outcome: ResolveDisputeBody.properties.outcome });

/** The page, with the refusal of a form posted to it when there is one (its status and the API's error array). */
async function showDisputes(request: FastifyRequest, reply: FastifyReply, ctx: AppContext, deps: DashboardDeps, refusal?: { status: number; errors: ErrorItem[] }) {
  const page = requireOperator(request, deps);
  const disputes = (await ctx.disputes.deadlineFirst(undefined)).filter((d) => isOpen(d.status));
  const query = request.query as Static<typeof DoneQuery>;
  const notice = refusal ? undefined : query.done && query.id ? { done: query.done, id: query.id } : undefined;
  return sendPage(reply, refusal?.status ?? 200, render(page, { disputes, notice, errors: refusal?.errors }));
}

function refusalOf(error: unknown): { status: number; errors: ErrorItem[] } {
  if (error instanceof DomainError && (error.kind === 'invalid' || error.kind === 'not_found' || error.kind === 'conflict')) return { status: httpOf(error).status, errors: error.errors };
  throw error;
}

/**
 * GET /dashboard/operator/disputes: every merchant's open disputes, deadline first; the form that
 * registers a chargeback as the acquirer reports it and the won/lost decision of each, the same
 * calls as POST /admin/disputes and /admin/disputes/{id}/resolve.
 */
export function operatorDisputesPage(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  scope.get('/operator/disputes', { schema: { hide: true, querystring: DoneQuery } }, async (request, reply) => showDisputes(request, reply, ctx, deps));

  scope.post('/operator/disputes', { schema: { hide: true, body: RegisterForm }, attachValidation: true }, async (request, reply) => {
    requireOperator(request, deps);
    const problems = formProblems(request, RegisterForm);
    if (problems.length > 0) return showDisputes(request, reply, ctx, deps, { status: 400, errors: problems });
    const form = request.body as Static<typeof RegisterForm>;
    // A payment id typed by a person (the operator reads the acquirer's report) is looked up as it is.
    const body = { paymentId: form.paymentId.trim(), reasonCode: form.reasonCode.trim(), ...apiBody(RegisterForm, form), ...(form.respondBy ? { respondBy: form.respondBy } : {}) } as RegisterDisputeBody;
    let disputeId: string;
    try {
      checkRegisterBody(body);
      disputeId = (await ctx.disputes.register({ ...body, source: 'operator' })).disputeId;
    } catch (error) {
      return showDisputes(request, reply, ctx, deps, refusalOf(error));
    }
    return seeOther(reply, `/dashboard/operator/disputes?done=registered&id=${disputeId}`);
  });

  scope.post('/operator/disputes/:disputeId/resolve', { schema: { hide: true, params: DisputeIdParams, body: ResolveForm } }, async (request, reply) => {
    requireOperator(request, deps);
    const { disputeId } = request.params as { disputeId: string };
    const { outcome } = request.body as Static<typeof ResolveForm>;
    try {
      await ctx.disputes.resolve(disputeId, outcome);
    } catch (error) {
      return showDisputes(request, reply, ctx, deps, refusalOf(error));
    }
    return seeOther(reply, `/dashboard/operator/disputes?done=${outcome}&id=${disputeId}`);
  });
}

const strings = bilingual(
  {
    title: 'Disputas',
    intro: 'Disputas abertas de todos os lojistas, pelo prazo mais próximo. Registre um chargeback como a adquirente o informa e registre a decisão da bandeira.',
    register: 'Registrar chargeback',
    paymentId: 'Pagamento (paymentId)',
    reasonCode: 'Código de motivo da bandeira (reasonCode)',
    amount: 'Valor contestado em centavos (em branco: o que resta)',
    respondBy: 'Prazo para evidências (AAAA-MM-DD; em branco: 10 dias)',
    submit: 'Registrar',
    open: 'Disputas abertas',
    merchant: 'Lojista',
    deadline: 'Prazo',
    status: 'Situação',
    value: 'Valor',
    reason: 'Motivo',
    created: 'Aberta em',
    decision: 'Decisão',
    won: 'Ganha',
    lost: 'Perdida',
    wonConfirm: 'Registrar a disputa {id} como ganha pelo lojista?',
    lostConfirm: 'Registrar a disputa {id} como perdida pelo lojista? O valor é devolvido ao portador.',
    empty: 'Nenhuma disputa aberta.',
    registered: 'Disputa {id} registrada.',
    resolvedWon: 'Disputa {id}: ganha.',
    resolvedLost: 'Disputa {id}: perdida.',
  },
  {
    title: 'Disputes',
    intro: "Every merchant's open disputes, nearest deadline first. Register a chargeback as the acquirer reports it and record the card network's decision.",
    register: 'Register a chargeback',
    paymentId: 'Payment (paymentId)',
    reasonCode: "Card network's reason code (reasonCode)",
    amount: 'Disputed amount in cents (blank: what is left)',
    respondBy: 'Evidence due by (YYYY-MM-DD; blank: 10 days)',
    submit: 'Register',
    open: 'Open disputes',
    merchant: 'Merchant',
    deadline: 'Deadline',
    status: 'Status',
    value: 'Amount',
    reason: 'Reason',
    created: 'Opened',
    decision: 'Decision',
    won: 'Won',
    lost: 'Lost',
    wonConfirm: 'Record dispute {id} as won by the merchant?',
    lostConfirm: 'Record dispute {id} as lost by the merchant? The amount goes back to the cardholder.',
    empty: 'No open dispute.',
    registered: 'Dispute {id} registered.',
    resolvedWon: 'Dispute {id}: won.',
    resolvedLost: 'Dispute {id}: lost.',
  },
);

interface DisputesView {
  disputes: Awaited<ReturnType<AppContext['disputes']['deadlineFirst']>>;
  notice?: { done: string; id: string };
  errors?: ErrorItem[];
}

const NOTICES = { registered: 'registered', won: 'resolvedWon', lost: 'resolvedLost' } as const;

function render(page: PageContext, view: DisputesView): string {
  const t = strings(page.lang);
  const key = view.notice && NOTICES[view.notice.done as keyof typeof NOTICES];
  const notice = key && view.notice ? t[key].replace('{id}', view.notice.id) : undefined;
  const rows = view.disputes.map((d) => {
    const ask = (q: string) => q.replace('{id}', d.disputeId);
    return html`<tr><td>${date(d.respondBy)}</td><td>${disputeBadge(page.lang, d.status)}</td><td class="num">${brl(BigInt(d.amount))}</td><td>${d.reasonCode} · ${d.reasonMessage}</td>
<td><a href="/dashboard/operator/merchants/${d.merchantId}"><code>${d.merchantId}</code></a></td><td class="mono">${d.paymentId ?? d.pixChargeId}</td><td>${dateTime(d.createdAt)}</td>
<td><form method="post" action="/dashboard/operator/disputes/${d.disputeId}/resolve" class="inline" data-confirm="${ask(t.wonConfirm)}">${csrfField(page)}<input type="hidden" name="outcome" value="won"><button type="submit" aria-label="${t.won} ${d.disputeId}">${t.won}</button></form>
<form method="post" action="/dashboard/operator/disputes/${d.disputeId}/resolve" class="inline" data-confirm="${ask(t.lostConfirm)}">${csrfField(page)}<input type="hidden" name="outcome" value="lost"><button type="submit" class="danger" aria-label="${t.lost} ${d.disputeId}">${t.lost}</button></form></td></tr>`;
  });
  return layout(
    page,
    t.title,
    html`${flash(notice, view.errors?.map((e) => `${e.tag}: ${e.description}`))}
<p>${t.intro}</p>
<section class="card" aria-labelledby="register-title"><h2 id="register-title">${t.register}</h2>
<form method="post" action="/dashboard/operator/disputes">${csrfField(page)}
<label for="d-payment">${t.paymentId}</label><input id="d-payment" name="paymentId" required maxlength="36" autocomplete="off">
<label for="d-reason">${t.reasonCode}</label><input id="d-reason" name="reasonCode" required maxlength="10" autocomplete="off">
<label for="d-amount">${t.amount}</label><input id="d-amount" name="amount" inputmode="numeric" autocomplete="off">
<label for="d-respond">${t.respondBy}</label><input id="d-respond" name="respondBy" type="date">
<button type="submit">${t.submit}</button></form></section>
<div class="table-wrap"><table id="open-disputes"><caption>${t.open}</caption>
<thead><tr><th scope="col">${t.deadline}</th><th scope="col">${t.status}</th><th scope="col" class="num">${t.value}</th><th scope="col">${t.reason}</th><th scope="col">${t.merchant}</th><th scope="col">paymentId</th><th scope="col">${t.created}</th><th scope="col">${t.decision}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="8">${t.empty}</td></tr>`}</tbody></table></div>`,
  );
}
