import type { FastifyInstance } from 'fastify';
import type { DashboardServices } from '../../services.js';
import { html } from '../../../../http/html.js';
import type { DisputeSummary } from '../../../disputes/schemas.js';
import { brl, date, dateTime } from '../../format.js';
import { pageOf, requireMerchant, requireScope, sendPage, type DashboardDeps } from '../../http.js';
import { bilingual } from '../../i18n.js';
import { layout, type PageContext } from '../../layout.js';
import { disputedHref, disputeBadge } from './status.js';

/**
 * GET /dashboard/disputes: the merchant's chargebacks, deadline first (the open ones by the last
 * day evidence is taken, the nearest first, then the latest closed ones), each linking to its
 * page with the evidence form.
 */
export function disputeListPage(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
  scope.get('/disputes', { schema: { hide: true } }, async (request, reply) => {
    const p = requireMerchant(request);
    requireScope(p, 'payments');
    const disputes = await ctx.disputes.deadlineFirst(p.merchantId);
    return sendPage(reply, 200, render(pageOf(request, deps), disputes));
  });
}

const strings = bilingual(
  {
    title: 'Disputas (chargebacks)',
    intro: 'Contestações de compras abertas pelos portadores junto aos emissores. Enquanto uma disputa está aberta, as parcelas do pagamento ficam bloqueadas; envie as evidências até o prazo ou aceite a disputa.',
    respondBy: 'Prazo',
    status: 'Situação',
    amount: 'Valor',
    reason: 'Motivo',
    payment: 'Pagamento',
    created: 'Aberta em',
    empty: 'Nenhuma disputa.',
    open: 'Abrir',
  },
  {
    title: 'Disputes (chargebacks)',
    intro: 'Purchases contested by cardholders with their issuers. While a dispute is open the payment\'s installments are blocked; send evidence by the deadline or accept the dispute.',
    respondBy: 'Deadline',
    status: 'Status',
    amount: 'Amount',
    reason: 'Reason',
    payment: 'Payment',
    created: 'Opened',
    empty: 'No dispute.',
    open: 'Open',
  },
);

function render(page: PageContext, disputes: DisputeSummary[]): string {
  const t = strings(page.lang);
  return layout(
    page,
    t.title,
    html`<p>${t.intro}</p>
<div class="table-wrap"><table id="disputes"><thead><tr><th scope="col">${t.respondBy}</th><th scope="col">${t.status}</th><th scope="col" class="num">${t.amount}</th><th scope="col">${t.reason}</th><th scope="col">${t.payment}</th><th scope="col">${t.created}</th></tr></thead>
<tbody>${disputes.length
  ? disputes.map((d) => html`<tr><td><a href="/dashboard/disputes/${d.disputeId}">${date(d.respondBy)}</a></td><td>${disputeBadge(page.lang, d.status)}</td><td class="num">${brl(BigInt(d.amount))}</td><td>${d.reasonCode} · ${d.reasonMessage}</td><td><a href="${disputedHref(d).href}" class="mono">${disputedHref(d).id}</a></td><td>${dateTime(d.createdAt)}</td></tr>`)
  : html`<tr><td colspan="6">${t.empty}</td></tr>`}</tbody></table></div>`,
  );
}
