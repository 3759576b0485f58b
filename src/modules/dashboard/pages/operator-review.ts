import { html } from '../../../http/html.js';
import type { ReviewRow } from '../../payments/review-queue.js';
import { brl, dateTime } from '../format.js';
import { bilingual, common } from '../i18n.js';
import { csrfField, layout, type PageContext } from '../layout.js';

export const reviewText = bilingual(
  {
    title: 'Fila de revisão',
    intro: 'Pagamentos retidos pelo antifraude (status Blocked), de todos os lojistas, do mais antigo ao mais novo. Aprovar envia à adquirente; recusar cancela.',
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
    intro: 'Payments held by anti-fraud (status Blocked), of every merchant, oldest first. Approving sends it to the acquirer; rejecting cancels it.',
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

export interface ReviewView {
  rows: ReviewRow[];
  /** The cursor of the next page, when there is one. */
  next?: string;
  first: boolean;
  done?: { paymentId: string; status: string };
}

export function reviewPage(page: PageContext, view: ReviewView): string {
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
