import { randomBytes } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardServices } from '../services.js';
import { STATUS_OF } from '../../../http/errors.js';
import { html } from '../../../http/html.js';
import { formSchema } from '../forms.js';
import { pageOf, seeOther, sendPage, type DashboardDeps } from '../http.js';
import { common, langOf, LANG_COOKIE } from '../i18n.js';
import { layout, type PageContext } from '../layout.js';
import { SESSION_COOKIE, csrfMatches } from '../sessions.js';

/** The login form's CSRF token (no session yet): a cookie and a field that must match (double submit). */
const LOGIN_CSRF_COOKIE = 'gw_login_csrf';

const LoginForm = formSchema({
  userName: Type.Optional(Type.String({ maxLength: 200 })),
  password: Type.Optional(Type.String({ maxLength: 500 })),
  adminKey: Type.Optional(Type.String({ maxLength: 500 })),
  next: Type.Optional(Type.String({ maxLength: 2000 })),
});
type LoginFields = Static<typeof LoginForm>;
const NextQuery = Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })) });
const LangParams = Type.Object({ lang: Type.Union([Type.Literal('pt-BR'), Type.Literal('en')]) });
const BackQuery = Type.Object({ back: Type.Optional(Type.String({ maxLength: 2000 })) });

/** Only a path of the dashboard itself: a login never sends anyone to another site. */
function safeNext(next: string | undefined, fallback: string): string {
  return next && /^\/dashboard(\/[A-Za-z0-9._~%/?=&:-]*)?$/.test(next) && !next.startsWith('//') ? next : fallback;
}

/**
 * /dashboard/login (the merchant, with its API credential), /dashboard/login/operator
 * (ADMIN_API_KEY), /dashboard/logout, and the language switch: what a browser reaches without
 * a session.
 */
export function loginPages(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
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
    const next = (request.query as { next?: string } | undefined)?.next ?? (request.body as LoginFields | undefined)?.next;
    return sendPage(reply, status, render(pageOf(request, deps), { kind, csrf: token, error, next: safeNext(next, '') }));
  }

  async function start(reply: FastifyReply, role: 'merchant' | 'operator', who: { merchantId?: string; userName?: string }, next: string) {
    const { cookie } = await deps.sessions.open(role, who);
    reply.setCookie(SESSION_COOKIE, cookie, cookieOptions(ctx.config.dashboard.sessionMinutes * 60));
    reply.clearCookie(LOGIN_CSRF_COOKIE, { path: '/dashboard' });
    return seeOther(reply, next);
  }

  scope.get('/login', { schema: { hide: true, querystring: NextQuery } }, async (request, reply) => showLogin(request, reply, 'merchant'));
  scope.get('/login/operator', { schema: { hide: true, querystring: NextQuery } }, async (request, reply) => showLogin(request, reply, 'operator'));

  // The merchant logs in with its API credential: the same lockout, IP list and timing as the token endpoints.
  scope.post('/login', { schema: { hide: true, body: LoginForm } }, async (request, reply) => {
    const body = request.body as LoginFields;
    const t = common(langOf(request));
    if (!csrfMatches(body._csrf, request.cookies[LOGIN_CSRF_COOKIE] ?? '\0')) return showLogin(request, reply, 'merchant', 403, t.csrf);
    const checked = await ctx.auth.checkPassword('dashboard', body.userName ?? '', body.password ?? '', request.ip);
    if ('refused' in checked) {
      const { refusal, retryAfter } = checked.refused;
      const message = refusal === 'too_many' ? t.locked.replace('{minutes}', String(Math.ceil((retryAfter ?? 60) / 60))) : refusal === 'forbidden' ? t.ipRefused : t.badLogin;
      if (retryAfter) reply.header('Retry-After', String(retryAfter));
      return showLogin(request, reply, 'merchant', STATUS_OF[refusal ?? 'unauthenticated'], message);
    }
    return start(reply, 'merchant', { merchantId: checked.credential.merchant_id, userName: body.userName }, safeNext(body.next, '/dashboard'));
  });

  // The operator logs in with ADMIN_API_KEY; failures are locked per address like a userName's.
  scope.post('/login/operator', { schema: { hide: true, body: LoginForm } }, async (request, reply) => {
    const body = request.body as LoginFields;
    const t = common(langOf(request));
    if (!csrfMatches(body._csrf, request.cookies[LOGIN_CSRF_COOKIE] ?? '\0')) return showLogin(request, reply, 'operator', 403, t.csrf);
    const checked = await ctx.auth.checkAdminKey(body.adminKey ?? '', request.ip);
    if (!('ok' in checked)) {
      if (checked.retryAfter) reply.header('Retry-After', String(checked.retryAfter));
      const message = checked.refusal === 'too_many' ? t.locked.replace('{minutes}', String(Math.ceil((checked.retryAfter ?? 60) / 60))) : t.badAdminKey;
      return showLogin(request, reply, 'operator', STATUS_OF[checked.refusal], message);
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
  scope.get('/lang/:lang', { schema: { hide: true, params: LangParams, querystring: BackQuery } }, async (request, reply) => {
    const { lang } = request.params as { lang: string };
    reply.setCookie(LANG_COOKIE, lang, { path: '/dashboard', sameSite: 'strict', secure: ctx.config.mode === 'production', maxAge: 365 * 86400 });
    return seeOther(reply, safeNext((request.query as { back?: string }).back, '/dashboard'));
  });
}

interface LoginView {
  kind: 'merchant' | 'operator';
  csrf: string;
  error?: string;
  /** Where to go after the login ('' for the role's home). */
  next: string;
}

function render(page: PageContext, view: LoginView): string {
  const t = common(page.lang);
  const fields =
    view.kind === 'merchant'
      ? html`<label for="userName">${t.userName}</label>
<input id="userName" name="userName" autocomplete="username" required autofocus>
<label for="password">${t.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>`
      : html`<label for="adminKey">${t.adminKey}</label>
<input id="adminKey" name="adminKey" type="password" autocomplete="current-password" required autofocus>`;
  const action = view.kind === 'merchant' ? '/dashboard/login' : '/dashboard/login/operator';
  const other = view.kind === 'merchant' ? html`<a href="/dashboard/login/operator">${t.operatorLogin}</a>` : html`<a href="/dashboard/login">${t.merchantLogin}</a>`;
  return layout(
    page,
    view.kind === 'merchant' ? t.loginTitle : t.operatorLogin,
    html`${view.error ? html`<p class="alert" role="alert">${view.error}</p>` : ''}
<form method="post" action="${action}" class="card narrow">
<input type="hidden" name="_csrf" value="${view.csrf}">
${view.next ? html`<input type="hidden" name="next" value="${view.next}">` : ''}
${fields}
<button type="submit">${t.signIn}</button>
</form>
<p>${other}</p>`,
  );
}
