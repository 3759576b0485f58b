import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { DashboardServices } from '../../services.js';
import { invalid } from '../../../../domain/errors.js';
import { html } from '../../../../http/html.js';
import type { ReviewRow } from '../../../payments/review-queue.js';
import { PaymentIdParams } from '../../../payments/schemas.js';
import { brl, dateTime } from '../../format.js';
import { formSchema } from '../../forms.js';
import { requireOperator, seeOther, sendPage, type DashboardDeps } from '../../http.js';
import { bilingual, common } from '../../i18n.js';
import { csrfField, layout, type PageContext } from '../../layout.js';

const PAGE_SIZE = 25;

const ReviewQuery = Type.Object({
  /** `<created_at>~<paymentId>` of the previous page's last row. */
  after: Type.Optional(Type.String({ maxLength: 120 })),
  done: Type.Optional(Type.String({ maxLength: 36 })),
  status: Type.Optional(Type.String({ maxLength: 20 })),
});

const DecisionForm = formSchema({ decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')]) });

/** The review queue's own keyset cursor, `<created_at>~<paymentId>`. */
function parseAfter(after: string | undefined): { at: string; id: string } | undefined {
  if (after === undefined || after === '') return undefined;
  const m = /^(\d{4}-\d{2}-\d{2}T[0-9:.]+Z)~([0-9a-zA-Z-]{1,36})$/.exec(after);
  if (!m) throw invalid('query.after', 'after must be the cursor of a page link.');
  return { at: m[1], id: m[2] };
}

/** GET /dashboard/operator/review (Blocked payments, oldest first) and the approve/reject forms. */
export function reviewPage(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
  scope.get('/operator/review', { schema: { hide: true, querystring: ReviewQuery } }, async (request, reply) => {
    const page = requireOperator(request, deps);
    const query = request.query as Static<typeof ReviewQuery>;
    const after = parseAfter(query.after);
    // One more row than shown tells whether there is a next page (no count).
    const rows = await ctx.payments.reads.reviewQueue(after, PAGE_SIZE + 1);
    const shown = rows.slice(0, PAGE_SIZE);
    const last = shown.at(-1);
    const next = rows.length > PAGE_SIZE && last ? `${last.created_at}~${last.payment_id}` : undefined;
    const done = query.done && query.status ? { paymentId: query.done, status: query.status } : undefined;
    return sendPage(reply, 200, render(page, { rows: shown, next, first: !after, done }));
  });

  // POST /admin/payments/{id}/review's call: only a Blocked payment (409 otherwise); approve -> Authorized, reject -> Canceled.
  scope.post('/operator/review/:paymentId', { schema: { hide: true, params: PaymentIdParams, body: DecisionForm } }, async (request, reply) => {
    requireOperator(request, deps);
    const { paymentId } = request.params as { paymentId: string };
    const result = await ctx.payments.review(paymentId, (request.body as Static<typeof DecisionForm>).decision);
    return seeOther(reply, `/dashboard/operator/review?done=${encodeURIComponent(paymentId)}&status=${encodeURIComponent(result.status)}`);
  });
}

const reviewText = bilingual(
  {
    title: 'Fila de revisão',
    intro: 'Pagamentos retidos pelo antifraude (status Blocked), de todos os lojistas, do mais antigo ao mais novo. A adquirente já autorizou: aprovar o torna Authorized; recusar o cancela na adquirente.',
    created: 'Criado em',
    merchant: 'Lojista',
    amount: 'Valor',
    card: 'Cartão',
    score: 'Pontuação',
    reasons: 'Motivos',
    reference: 'Referência',
    decision: 'Decisão',
    approve: 'Aprovar',
    reject: 'Recusar',
    approveConfirm: 'Aprovar o pagamento {id} de {amount}?',
    rejectConfirm: 'Recusar (cancelar) o pagamento {id} de {amount}?',
    empty: 'Nenhum pagamento aguardando revisão.',
    done: 'Pagamento {id}: agora {status}.',
    caption: 'Pagamentos aguardando revisão',
  },
  {
    title: 'Review queue',
    intro: 'Payments held by anti-fraud (status Blocked), of every merchant, oldest first. The acquirer already authorized them: approving makes one Authorized; rejecting cancels it at the acquirer.',
    created: 'Created',
    merchant: 'Merchant',
    amount: 'Amount',
    card: 'Card',
    score: 'Score',
    reasons: 'Reasons',
    reference: 'Reference',
    decision: 'Decision',
    approve: 'Approve',
    reject: 'Reject',
    approveConfirm: 'Approve payment {id} of {amount}?',
    rejectConfirm: 'Reject (cancel) payment {id} of {amount}?',
    empty: 'No payment waiting for review.',
    done: 'Payment {id}: now {status}.',
    caption: 'Payments waiting for review',
  },
);

interface ReviewView {
  rows: ReviewRow[];
  /** The cursor of the next page, when there is one. */
  next?: string;
  first: boolean;
  done?: { paymentId: string; status: string };
}

function render(page: PageContext, view: ReviewView): string {
  const t = reviewText(page.lang);
  const c = common(page.lang);
  const rows = view.rows.map((p) => {
    const amount = brl(BigInt(p.amount));
    const ask = (q: string) => q.replace('{id}', p.payment_id).replace('{amount}', amount);
    return html`<tr>
<td>${dateTime(p.created_at)}</td>
<td class="num">${amount}${p.installments > 1 ? html` <span class="muted">(${p.installments}x)</span>` : ''}</td>
<td><form method="post" action="/dashboard/operator/review/${p.payment_id}" class="inline" data-confirm="${ask(t.approveConfirm)}">${csrfField(page)}<input type="hidden" name="decision" value="approve"><button type="submit" aria-label="${t.approve} ${p.payment_id}">${t.approve}</button></form>
<form method="post" action="/dashboard/operator/review/${p.payment_id}" class="inline" data-confirm="${ask(t.rejectConfirm)}">${csrfField(page)}<input type="hidden" name="decision" value="reject"><button type="submit" class="danger" aria-label="${t.reject} ${p.payment_id}">${t.reject}</button></form></td>
<td><a href="/dashboard/operator/merchants/${p.merchant_id}"><code>${p.merchant_id}</code></a></td>
<td>${p.brand} <code>${p.masked_card_number}</code></td>
<td class="num">${p.antifraud_score}</td>
<td>${(JSON.parse(p.antifraud_reasons) as string[]).join(', ')}</td>
<td>${p.reference_transaction ?? ''}</td>
</tr>`;
  });
  return layout(
    page,
    t.title,
    html`${view.done ? html`<p class="notice" role="status">${t.done.replace('{id}', view.done.paymentId).replace('{status}', view.done.status)}</p>` : ''}
<p>${t.intro}</p>
<div class="table-wrap"><table>
<caption>${t.caption}</caption>
<thead><tr><th scope="col">${t.created}</th><th scope="col" class="num">${t.amount}</th><th scope="col">${t.decision}</th><th scope="col">${t.merchant}</th><th scope="col">${t.card}</th><th scope="col" class="num">${t.score}</th><th scope="col">${t.reasons}</th><th scope="col">${t.reference}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="8">${t.empty}</td></tr>`}</tbody>
</table></div>
<nav class="pager" aria-label="${t.title}">
${view.first ? '' : html`<a href="/dashboard/operator/review">${c.first}</a>`}
${view.next ? html`<a href="/dashboard/operator/review?after=${view.next}">${c.next}</a>` : ''}
</nav>`,
  );
}
