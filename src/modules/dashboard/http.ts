import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/errors.js';
import type { Principal } from '../auth/service.js';
import type { Scope } from '../merchants/service.js';
import type { DashboardAssets } from './assets.js';
import { common, langOf } from './i18n.js';
import type { PageContext } from './layout.js';
import type { DashboardRole, DashboardSession, DashboardSessions } from './sessions.js';

/**
 * What a page handler uses around its rendering: what it is given (DashboardDeps), who may see
 * the page (requireMerchant, requireScope, requireOperator), the page's context (pageOf), and how
 * it answers (sendPage, seeOther).
 */

/** What every page gets besides the app context. */
export interface DashboardDeps {
  sessions: DashboardSessions;
  assets: DashboardAssets;
  /** Sandbox mode: the clock and event triggers are shown to the operator. */
  sandbox: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The dashboard session of the request's cookie, when there is a live one (session-hooks.ts). */
    dashboardSession?: DashboardSession;
    /** A merchant session's principal: what its credential's bearer token would carry. */
    dashboardPrincipal?: Principal;
  }
}

/** Thrown by a handler that needs a role the session does not have (or no session): the error pages send it to the login. */
export class NeedsLogin extends Error {}

/** Our files only; forms post only to us; nothing frames the pages. */
const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** A page as the answer, with the headers every dashboard page carries. */
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

/** The request's PageContext: its language, its session, the path it shows. */
export function pageOf(request: FastifyRequest, deps: DashboardDeps): PageContext {
  const path = request.url.split('?')[0];
  return { lang: langOf(request), assets: deps.assets, session: request.dashboardSession, path, sandbox: deps.sandbox };
}

/**
 * The session of a page that needs `role`. A merchant never reaches an operator page or the
 * reverse: the answer is 404, as for anything else not theirs. Without a session: to login.
 */
function requireRole(request: FastifyRequest, role: DashboardRole): DashboardSession {
  const session = request.dashboardSession;
  if (!session) throw new NeedsLogin();
  if (session.role !== role) throw new DomainError('not_found', 'not_found', common(langOf(request)).notFound);
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

/** The same scope the API route's token would need: a credential without it sees a 403 page. */
export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) throw new DomainError('forbidden', 'forbidden', `This credential lacks the "${scope}" scope.`);
}

/** An operator page's context; a merchant gets the role's 404 (requireRole), no session the login. */
export function requireOperator(request: FastifyRequest, deps: DashboardDeps): PageContext {
  requireRole(request, 'operator');
  return pageOf(request, deps);
}
