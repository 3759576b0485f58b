import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import type { DashboardServices } from './services.js';
import type { App } from '../../http/types.js';
import { serveDashboardAssets } from './assets.js';
import { installErrorPages } from './error-pages.js';
import type { DashboardDeps } from './http.js';
import { bankSlipPages } from './pages/bankslips.js';
import { conciliationPage } from './pages/conciliation/page.js';
import { disputeDetailPage } from './pages/disputes/detail.js';
import { disputeListPage } from './pages/disputes/list.js';
import { homePage } from './pages/home.js';
import { linksPage } from './pages/links.js';
import { loginPages } from './pages/login.js';
import { operatorJobsPage } from './pages/operator/jobs.js';
import { operatorDisputesPage } from './pages/operator/disputes.js';
import { acquirerForm } from './pages/operator/merchant/acquirer.js';
import { antifraudForm } from './pages/operator/merchant/antifraud.js';
import { merchantPage } from './pages/operator/merchant/page.js';
import { pricingForm } from './pages/operator/merchant/pricing.js';
import { merchantsPage } from './pages/operator/merchants.js';
import { reviewPage } from './pages/operator/review.js';
import { sandboxPage } from './pages/operator/sandbox/page.js';
import { paymentDetailPage } from './pages/payments/detail.js';
import { paymentListPage } from './pages/payments/list.js';
import { pixDetailPage } from './pages/pix/detail.js';
import { pixListPage } from './pages/pix/list.js';
import { subscriptionPage } from './pages/subscriptions/detail.js';
import { subscriptionListPage } from './pages/subscriptions/list.js';
import { webhooksPage } from './pages/webhooks/page.js';
import { installSessionHooks } from './session-hooks.js';
import { DashboardSessions } from './sessions.js';

/** Every page of the dashboard: each registers its routes (GET, and POST for its forms) on the /dashboard scope. */
const PAGES: ((scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps) => void)[] = [
  loginPages,
  homePage,
  paymentListPage,
  paymentDetailPage,
  disputeListPage,
  disputeDetailPage,
  conciliationPage,
  subscriptionListPage,
  subscriptionPage,
  bankSlipPages,
  pixListPage,
  pixDetailPage,
  linksPage,
  webhooksPage,
  merchantsPage,
  merchantPage,
  pricingForm,
  antifraudForm,
  acquirerForm,
  reviewPage,
  operatorDisputesPage,
  operatorJobsPage,
  sandboxPage,
];

/**
 * The web dashboard at /dashboard: server-rendered pages over the same services as the APIs.
 * Its own scope parses forms and cookies (the APIs still take JSON only), checks the session
 * and the CSRF token before any handler runs, and renders its errors as pages.
 */
export function registerDashboardRoutes(app: App, ctx: DashboardServices): void {
  void app.register(
    async (scope) => {
      await scope.register(cookie);
      await scope.register(formbody, { bodyLimit: 64 * 1024 });
      const sessions = new DashboardSessions(ctx.database, ctx.clock, {
        ttlMs: ctx.config.dashboard.sessionMinutes * 60_000,
        idleMs: ctx.config.dashboard.idleMinutes * 60_000,
      });
      const deps: DashboardDeps = { sessions, assets: serveDashboardAssets(scope), sandbox: ctx.config.mode === 'sandbox' };
      installSessionHooks(scope, ctx, sessions);
      installErrorPages(scope, deps);
      for (const register of PAGES) register(scope, ctx, deps);
    },
    { prefix: '/dashboard' },
  );
}
