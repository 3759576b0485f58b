import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { addDays } from '../../../domain/calendar.js';
import { brasiliaDate, homeFigures, lastDays } from '../charts.js';
import { NeedsLogin, pageContext, requireMerchant, seeOther, sendPage, type DashboardDeps } from '../http.js';
import { homePage } from '../pages/home.js';

/** Days the sales charts cover, and days ahead the receivables chart covers. */
const SALES_DAYS = 30;
const RECEIVABLES_DAYS = 60;

/** GET /dashboard: the merchant's home, its charts in business time (an operator is sent to the merchants list). */
export function homeRoutes(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  scope.get('/', { schema: { hide: true } }, async (request, reply) => {
    if (!request.dashboardSession) throw new NeedsLogin();
    if (request.dashboardSession.role === 'operator') return seeOther(reply, '/dashboard/operator/merchants');
    const p = requireMerchant(request);
    // Business time: the sandbox clock may have been moved forward.
    const today = brasiliaDate(ctx.clock.now());
    const days = lastDays(today, SALES_DAYS);
    const [figures, declines, expected, prepayment] = await Promise.all([
      ctx.payments.reads.dayFigures(p.merchantId, days),
      ctx.payments.reads.declines(p.merchantId, days[0].from, days[days.length - 1].to),
      ctx.settlement.expectedPerDay(p.accountNumber, today, addDays(today, RECEIVABLES_DAYS)),
      ctx.settlement.prepaymentQuote(p.merchantId, p.accountNumber),
    ]);
    const page = pageContext(request, deps.assets, deps.sandbox);
    return sendPage(reply, 200, homePage(page, { figures: homeFigures(figures, declines), expected, prepayment }));
  });
}
