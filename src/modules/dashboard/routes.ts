import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../../db/faults.js';
import { ApiError, type ErrorItem } from '../../http/errors.js';
import { frameworkError } from '../../http/error-handler.js';
import type { App } from '../../http/types.js';
import { validationErrors } from '../../http/validation.js';
import { ipAllowed } from '../../security/ip-allowlist.js';
import type { Scope } from '../merchants/service.js';
import { DashboardSessions, csrfMatches } from './sessions.js';
import { NeedsLogin, SESSION_COOKIE, pageContext, seeOther, sendPage, type DashboardDeps } from './http.js';
import { common, langOf } from './i18n.js';
import { errorPage } from './pages/error.js';
import { dashboardAssetRoutes } from './routes/assets.js';
import { loginRoutes } from './routes/login.js';
import { homeRoutes } from './routes/home.js';
import { operatorRoutes } from './routes/operator-routes.js';
import { recurrenceRoutes } from './routes/recurrence.js';
import { bankSlipRoutes } from './routes/bankslips.js';
import { pixRoutes } from './routes/pix.js';
import { linkRoutes } from './routes/links.js';
import { webhookRoutes } from './routes/webhooks.js';
import { paymentRoutes } from './routes/payments.js';
import { conciliationRoutes } from './routes/conciliation.js';

/** Route files of the dashboard: each registers its pages and forms on the /dashboard scope. */
const PAGES: ((scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps) => void)[] = [loginRoutes, homeRoutes, paymentRoutes, conciliationRoutes, recurrenceRoutes, bankSlipRoutes, pixRoutes, linkRoutes, webhookRoutes, operatorRoutes];

/** Paths a browser reaches without a session. */
const PUBLIC = /^\/dashboard\/(login(\/operator)?|lang\/[^/?]+|assets\/[^/?]+)(\?.*)?$/;

/**
 * The web dashboard at /dashboard: server-rendered pages over the same services as
 * the APIs. Its own scope parses forms and cookies (the APIs still take JSON only), renders its
 * errors as pages, and checks the session and the CSRF token before any handler runs.
 */
export function registerDashboardRoutes(app: App, ctx: AppContext): void {
  void app.register(
    async (scope) => {
      await scope.register(cookie);
      await scope.register(formbody, { bodyLimit: 64 * 1024 });
      const sessions = new DashboardSessions(ctx.database, ctx.clock, {
        ttlMs: ctx.config.dashboard.sessionMinutes * 60_000,
        idleMs: ctx.config.dashboard.idleMinutes * 60_000,
      });
      const deps: DashboardDeps = { sessions, assets: dashboardAssetRoutes(scope), sandbox: ctx.config.mode === 'sandbox' };

      scope.addHook('onRequest', async (request) => {
        if (PUBLIC.test(request.url)) return;
        const session = await sessions.find(request.cookies[SESSION_COOKIE]);
        if (session?.role === 'merchant') {
          // Like a bearer token: a revoked credential or an address it no longer allows ends the session now.
          const credential = await ctx.merchants.activeCredential(session.userName ?? '');
          if (!credential || credential.merchant_id !== session.merchantId || !ipAllowed(request.ip, JSON.parse(credential.allowed_ips))) {
            await sessions.close(request.cookies[SESSION_COOKIE]!);
            return;
          }
          // The same principal a bearer token of this credential gives the APIs' services.
          request.dashboardPrincipal = {
            userName: credential.user_name,
            merchantId: credential.merchant_id,
            accountNumber: Number(credential.account_number),
            scopes: credential.scopes.split(' ') as Scope[],
          };
        }
        request.dashboardSession = session;
      });
      // Every form of a session carries its CSRF token (the login forms check their own).
      scope.addHook('preHandler', async (request) => {
        if (request.method !== 'POST' || PUBLIC.test(request.url)) return;
        const session = request.dashboardSession;
        if (!session) throw new NeedsLogin();
        if (!csrfMatches((request.body as { _csrf?: unknown } | undefined)?._csrf, session.csrfToken)) {
          throw new ApiError(403, 'csrf', common(langOf(request.cookies.gw_lang)).csrf);
        }
      });

      scope.setErrorHandler((error: FastifyError, request, reply) => {
        if (error instanceof NeedsLogin) {
          const path = request.url.startsWith('/dashboard/operator') ? '/dashboard/login/operator' : '/dashboard/login';
          return seeOther(reply, request.method === 'GET' ? `${path}?next=${encodeURIComponent(request.url)}` : path);
        }
        let status: number;
        let errors: ErrorItem[];
        if (error instanceof ApiError) {
          [status, errors] = [error.statusCode, error.errors];
          reply.headers(error.headers);
        } else if (error.validation) {
          [status, errors] = [400, validationErrors(error.validation as any, error.validationContext ?? 'body')];
        } else if ((error.statusCode ?? 500) < 500) {
          ({ status, errors } = frameworkError(error));
        } else if (isDatabaseUnavailable(error)) {
          request.log.warn({ error: error.message }, 'database unavailable');
          reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
          [status, errors] = [503, [{ tag: 'database_unavailable', description: 'The database is not reachable right now. Try again in a moment.' }]];
        } else {
          request.log.error({ err: error }, 'unhandled error');
          [status, errors] = [500, [{ tag: 'internal', description: 'Internal server error.' }]];
        }
        if (status >= 500 && error instanceof ApiError) request.log.error({ err: error }, 'request failed');
        return sendPage(reply, status, errorPage(pageContext(request, deps.assets, deps.sandbox), errors));
      });
      scope.setNotFoundHandler((request, reply) => {
        // Without a session, what exists is not told: every path goes to the login.
        if (!request.dashboardSession) {
          return seeOther(reply, request.method === 'GET' ? `/dashboard/login?next=${encodeURIComponent(request.url)}` : '/dashboard/login');
        }
        const t = common(langOf(request.cookies?.gw_lang));
        return sendPage(reply, 404, errorPage(pageContext(request, deps.assets, deps.sandbox), [{ tag: 'not_found', description: t.notFound }]));
      });

      for (const register of PAGES) register(scope, ctx, deps);
    },
    { prefix: '/dashboard' },
  );
}
