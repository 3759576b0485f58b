import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../http/errors.js';
import { common, langOf } from './i18n.js';
import type { Principal } from '../auth/service.js';
import type { DashboardAssets, PageContext } from './layout.js';
import type { DashboardRole, DashboardSession, DashboardSessions } from './sessions.js';

/** Our files only; forms post only to us; nothing frames the pages. */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const SESSION_COOKIE = 'gw_session';
export const LANG_COOKIE = 'gw_lang';

declare module 'fastify' {
  interface FastifyRequest {
    /** The dashboard session of the request's cookie, when there is a live one. */
    dashboardSession?: DashboardSession;
    /** A merchant session's principal: what its credential's bearer token would carry. */
    dashboardPrincipal?: Principal;
  }
}

/** What every dashboard route file gets besides the app context. */
export interface DashboardDeps {
  sessions: DashboardSessions;
  assets: DashboardAssets;
  /** Sandbox mode: the clock and event triggers are shown to the operator. */
  sandbox: boolean;
}

/** Thrown by a handler that needs a role the session does not have (or no session). */
export class NeedsLogin extends Error {}

export function sendPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .header('Content-Security-Policy', DASHBOARD_CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .header('X-Frame-Options', 'DENY')
    .header('Referrer-Policy', 'same-origin')
    // Pages show live data and a session's CSRF token: never from a cache.
    .header('Cache-Control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(body);
}

/** After a POST, a 303 to the page to show (post/redirect/get: a reload never posts twice). */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('Location', location).header('Cache-Control', 'no-store').send();
}

export function pageContext(request: FastifyRequest, assets: DashboardAssets, sandbox: boolean): PageContext {
  const path = request.url.split('?')[0];
  return { lang: langOf(request.cookies?.[LANG_COOKIE]), assets, session: request.dashboardSession, path, sandbox };
}

/**
 * The session of a page that needs `role`. A merchant never reaches an operator page or the
 * reverse: the answer is 404, as for anything else not theirs. Without a session: to login.
 */
export function requireRole(request: FastifyRequest, role: DashboardRole): DashboardSession {
  const session = request.dashboardSession;
  if (!session) throw new NeedsLogin();
  if (session.role !== role) throw new ApiError(404, 'not_found', common(langOf(request.cookies?.[LANG_COOKIE])).notFound);
  return session;
}

/**
 * A merchant page's principal (userName, merchantId, accountNumber, scopes): pass it to the
 * services exactly as an API route passes its token's. Everything a page shows is read with
 * its merchantId or accountNumber, so another merchant's id in the URL is a 404.
 */
export function requireMerchant(request: FastifyRequest): Principal {
  requireRole(request, 'merchant');
  if (!request.dashboardPrincipal) throw new NeedsLogin();
  return request.dashboardPrincipal;
}
