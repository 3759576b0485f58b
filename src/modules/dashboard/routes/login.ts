import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { LANG_COOKIE, SESSION_COOKIE, pageContext, seeOther, sendPage, type DashboardDeps } from '../http.js';
import { common, langOf } from '../i18n.js';
import { loginPage } from '../pages/login.js';
import { csrfMatches } from '../sessions.js';

/** The login form's CSRF token (no session yet): a cookie and a field that must match (double submit). */
const LOGIN_CSRF_COOKIE = 'gw_login_csrf';

const LoginBody = Type.Object({
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
  userName: Type.Optional(Type.String({ maxLength: 200 })),
  password: Type.Optional(Type.String({ maxLength: 500 })),
  adminKey: Type.Optional(Type.String({ maxLength: 500 })),
  next: Type.Optional(Type.String({ maxLength: 2000 })),
});
type LoginFields = { _csrf?: string; userName?: string; password?: string; adminKey?: string; next?: string };

/** Only a path of the dashboard itself: a login never sends anyone to another site. */
function safeNext(next: string | undefined, fallback: string): string {
  return next && /^\/dashboard(\/[A-Za-z0-9._~%/?=&:-]*)?$/.test(next) && !next.startsWith('//') ? next : fallback;
}

export function loginRoutes(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  const cookieOptions = (maxAgeSeconds?: number) => ({
    path: '/dashboard',
    httpOnly: true,
    secure: ctx.config.mode === 'production',
    sameSite: 'strict' as const,
    ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds } : {}),
  });

  function showLogin(request: FastifyRequest, reply: FastifyReply, kind: 'merchant' | 'operator', status = 200, error?: string) {
    const token = randomBytes(24).toString('base64url');
    reply.setCookie(LOGIN_CSRF_COOKIE, token, cookieOptions(3600));
    const page = pageContext(request, deps.assets, deps.sandbox);
    const next = (request.query as { next?: string } | undefined)?.next ?? (request.body as LoginFields | undefined)?.next;
    return sendPage(reply, status, loginPage(page, { kind, csrf: token, error, next: safeNext(next, '') }));
  }

  async function start(reply: FastifyReply, role: 'merchant' | 'operator', who: { merchantId?: string; userName?: string }, next: string) {
    const { cookie } = await deps.sessions.open(role, who);
    reply.setCookie(SESSION_COOKIE, cookie, cookieOptions(ctx.config.dashboard.sessionMinutes * 60));
    reply.clearCookie(LOGIN_CSRF_COOKIE, { path: '/dashboard' });
    return seeOther(reply, next);
  }

  const querySchema = Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })) });
  scope.get('/login', { schema: { hide: true, querystring: querySchema } }, async (request, reply) => showLogin(request, reply, 'merchant'));
  scope.get('/login/operator', { schema: { hide: true, querystring: querySchema } }, async (request, reply) => showLogin(request, reply, 'operator'));

  // The merchant logs in with its API credential: the same lockout, IP list and timing as the token endpoints.
  scope.post('/login', { schema: { hide: true, body: LoginBody } }, async (request, reply) => {
    const body = request.body as LoginFields;
    const t = common(langOf(request.cookies[LANG_COOKIE]));
    if (!csrfMatches(body._csrf, request.cookies[LOGIN_CSRF_COOKIE] ?? '\0')) return showLogin(request, reply, 'merchant', 403, t.csrf);
    const checked = await ctx.auth.checkPassword('dashboard', body.userName ?? '', body.password ?? '', request.ip);
    if ('refused' in checked) {
      const { status, retryAfter } = checked.refused;
      const message = status === 429 ? t.locked.replace('{minutes}', String(Math.ceil((retryAfter ?? 60) / 60))) : status === 403 ? t.ipRefused : t.badLogin;
      if (retryAfter) reply.header('Retry-After', String(retryAfter));
      return showLogin(request, reply, 'merchant', status, message);
    }
    return start(reply, 'merchant', { merchantId: checked.credential.merchant_id, userName: body.userName }, safeNext(body.next, '/dashboard'));
  });

  // The operator logs in with ADMIN_API_KEY; failures are locked per address like a userName's.
  scope.post('/login/operator', { schema: { hide: true, body: LoginBody } }, async (request, reply) => {
    const body = request.body as LoginFields;
    const t = common(langOf(request.cookies[LANG_COOKIE]));
    if (!csrfMatches(body._csrf, request.cookies[LOGIN_CSRF_COOKIE] ?? '\0')) return showLogin(request, reply, 'operator', 403, t.csrf);
    const checked = await ctx.auth.checkAdminKey(body.adminKey ?? '', request.ip);
    if (!('ok' in checked)) {
      if (checked.retryAfter) reply.header('Retry-After', String(checked.retryAfter));
      const message = checked.status === 429 ? t.locked.replace('{minutes}', String(Math.ceil((checked.retryAfter ?? 60) / 60))) : t.badAdminKey;
      return showLogin(request, reply, 'operator', checked.status, message);
    }
    return start(reply, 'operator', {}, safeNext(body.next, '/dashboard/operator/merchants'));
  });

  scope.post('/logout', { schema: { hide: true } }, async (request, reply) => {
    const cookie = request.cookies[SESSION_COOKIE];
    if (cookie) await deps.sessions.close(cookie);
    reply.clearCookie(SESSION_COOKIE, { path: '/dashboard' });
    return seeOther(reply, '/dashboard/login');
  });

  // The language switch: a cookie for a year, then back to the page it was pressed on.
  scope.get('/lang/:lang', { schema: { hide: true, params: Type.Object({ lang: Type.Union([Type.Literal('pt-BR'), Type.Literal('en')]) }), querystring: Type.Object({ back: Type.Optional(Type.String({ maxLength: 2000 })) }) } }, async (request, reply) => {
    const { lang } = request.params as { lang: string };
    reply.setCookie(LANG_COOKIE, lang, { path: '/dashboard', sameSite: 'strict', secure: ctx.config.mode === 'production', maxAge: 365 * 86400 });
    return seeOther(reply, safeNext((request.query as { back?: string }).back, '/dashboard'));
  });
}
