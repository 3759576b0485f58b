import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorAnswer } from '../../http/error-handler.js';
import type { ErrorItem } from '../../domain/errors.js';
import { html } from '../../http/html.js';
import { NeedsLogin, pageOf, seeOther, sendPage, type DashboardDeps } from './http.js';
import { common, langOf } from './i18n.js';
import { layout, type PageContext } from './layout.js';

/**
 * Every refusal and failure of the dashboard as a page: the status and the `[{tag, description}]`
 * the APIs would answer (their error mapping, errorAnswer), listed in HTML. Without a session,
 * the answer is the login instead.
 */
export function installErrorPages(scope: FastifyInstance, deps: DashboardDeps): void {
  scope.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof NeedsLogin) {
      return toLogin(request, reply, request.url.startsWith('/dashboard/operator') ? '/dashboard/login/operator' : '/dashboard/login');
    }
    const answer = errorAnswer(error, request);
    reply.headers(answer.headers);
    return sendPage(reply, answer.status, errorPage(pageOf(request, deps), answer.errors.map(forPeople)));
  });

  scope.setNotFoundHandler((request, reply) => {
    // Without a session, what exists is not told: every path goes to the login.
    if (!request.dashboardSession) return toLogin(request, reply, '/dashboard/login');
    return sendPage(reply, 404, errorPage(pageOf(request, deps), [{ tag: 'not_found', description: common(langOf(request)).notFound }]));
  });
}

/** To the login; a page asked for (GET) is where the login returns to. */
function toLogin(request: FastifyRequest, reply: FastifyReply, login: string): FastifyReply {
  return seeOther(reply, request.method === 'GET' ? `${login}?next=${encodeURIComponent(request.url)}` : login);
}

/** The API's 503 tells an integrator to retry with the same Idempotency-Key; a person just tries again. */
function forPeople(error: ErrorItem): ErrorItem {
  if (error.tag !== 'database_unavailable') return error;
  return { tag: error.tag, description: 'The database is not reachable right now. Try again in a moment.' };
}

function errorPage(page: PageContext, errors: ErrorItem[]): string {
  const t = common(page.lang);
  return layout(
    page,
    t.errorTitle,
    html`<div class="alert" role="alert"><ul>${errors.map((e) => html`<li><code>${e.tag}</code> ${e.description}</li>`)}</ul></div>
<p><a href="${page.session?.role === 'operator' ? '/dashboard/operator/merchants' : '/dashboard'}">${t.back}</a></p>`,
  );
}
