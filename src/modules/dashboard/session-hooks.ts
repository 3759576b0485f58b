import type { FastifyInstance } from 'fastify';
import type { DashboardServices } from './services.js';
import { DomainError } from '../../domain/errors.js';
import { NeedsLogin } from './http.js';
import { common, langOf } from './i18n.js';
import { DashboardSessions, SESSION_COOKIE, csrfMatches } from './sessions.js';

/** Paths a browser reaches without a session. */
const PUBLIC = /^\/dashboard\/(login(\/operator)?|lang\/[^/?]+|assets\/[^/?]+)(\?.*)?$/;

/**
 * Before any handler of the /dashboard scope: the session of the request's cookie, and the CSRF
 * token of every form a session posts (the login forms check their own).
 */
export function installSessionHooks(scope: FastifyInstance, ctx: DashboardServices, sessions: DashboardSessions): void {
  scope.addHook('onRequest', async (request) => {
    if (PUBLIC.test(request.url)) return;
    const cookie = request.cookies[SESSION_COOKIE];
    const session = await sessions.find(cookie);
    if (session?.role === 'merchant') {
      // Like a bearer token: a revoked credential or an address it no longer allows ends the session now.
      const principal = await ctx.auth.sessionPrincipal(session.userName ?? '', session.merchantId ?? '', request.ip);
      if (!principal) {
        await sessions.close(cookie!);
        return;
      }
      request.dashboardPrincipal = principal;
    }
    request.dashboardSession = session;
  });

  scope.addHook('preHandler', async (request) => {
    if (request.method !== 'POST' || PUBLIC.test(request.url)) return;
    const session = request.dashboardSession;
    if (!session) throw new NeedsLogin();
    if (!csrfMatches((request.body as { _csrf?: unknown } | undefined)?._csrf, session.csrfToken)) {
      throw new DomainError('forbidden', 'csrf', common(langOf(request)).csrf);
    }
  });
}
