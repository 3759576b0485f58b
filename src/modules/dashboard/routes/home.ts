import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { html } from '../../../http/html.js';
import { NeedsLogin, pageContext, requireMerchant, seeOther, sendPage, type DashboardDeps } from '../http.js';
import { common } from '../i18n.js';
import { layout } from '../layout.js';

/** GET /dashboard: the merchant's home (an operator is sent to the merchants list). */
export function homeRoutes(scope: FastifyInstance, _ctx: AppContext, deps: DashboardDeps): void {
  scope.get('/', { schema: { hide: true } }, async (request, reply) => {
    if (!request.dashboardSession) throw new NeedsLogin();
    if (request.dashboardSession.role === 'operator') return seeOther(reply, '/dashboard/operator/merchants');
    requireMerchant(request);
    const page = pageContext(request, deps.assets, deps.sandbox);
    return sendPage(reply, 200, layout(page, common(page.lang).home, html`<p></p>`));
  });
}
