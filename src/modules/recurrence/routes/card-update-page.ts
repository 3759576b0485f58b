import formbody from '@fastify/formbody';
import type { FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { RecurrenceRouteDeps } from '../route-deps.js';
import type { App } from '../../../http/types.js';
import { closedPage, donePage, formPage, type PageLang } from '../card-update-page.js';
import { CardUpdateForm } from '../schemas.js';

/** As the checkout's, but the page's own form may post back to it. */
const CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const STYLE = '/pay/assets/checkout.css';
const TOKEN = Type.Object({ token: Type.String({ maxLength: 80 }) });
const LangQuery = Type.Object({ lang: Type.Optional(Type.String({ maxLength: 5 })) });

const langOf = (value: string | undefined): PageLang => (value === 'en' ? 'en' : 'pt-BR');

function send(reply: FastifyReply, status: number, body: string) {
  return reply
    .code(status)
    .header('Content-Security-Policy', CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .header('X-Frame-Options', 'DENY')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cache-Control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(body);
}

/** GET and POST /pay/card-update/{token} (no auth): the card update link's page (pt-BR, or en with ?lang=en). */
export function cardUpdatePageRoutes(app: App, ctx: RecurrenceRouteDeps): void {
  void app.register(async (scope) => {
    await scope.register(formbody, { bodyLimit: 16 * 1024 });
    const path = (token: string, lang: PageLang) => `/pay/card-update/${encodeURIComponent(token)}${lang === 'en' ? '?lang=en' : ''}`;
    const other = (token: string, lang: PageLang) => path(token, lang === 'en' ? 'pt-BR' : 'en');

    scope.get('/pay/card-update/:token', { schema: { hide: true, params: TOKEN, querystring: LangQuery } }, async (request, reply) => {
      const { token } = request.params as { token: string };
      const lang = langOf((request.query as { lang?: string }).lang);
      const state = await ctx.recurrence.cardLinks.state(token);
      if (state.kind !== 'open') return send(reply, state.kind === 'unknown' ? 404 : 410, closedPage(lang, STYLE, state.kind, other(token, lang)));
      return send(reply, 200, formPage(lang, STYLE, state, path(token, lang), other(token, lang)));
    });

    scope.post('/pay/card-update/:token', { schema: { hide: true, params: TOKEN, body: CardUpdateForm } }, async (request, reply) => {
      const { token } = request.params as { token: string };
      const form = request.body as typeof CardUpdateForm.static;
      const lang = langOf(form.lang);
      const result = await ctx.recurrence.cardLinks.submit(token, { ...form, securityCode: form.securityCode || undefined });
      if (result.ok) return send(reply, 200, donePage(lang, STYLE, result.last4, result.billingStatus, other(token, lang)));
      if ('gone' in result) return send(reply, result.gone === 'unknown' ? 404 : 410, closedPage(lang, STYLE, result.gone, other(token, lang)));
      const state = await ctx.recurrence.cardLinks.state(token);
      if (state.kind !== 'open') return send(reply, 410, closedPage(lang, STYLE, state.kind === 'unknown' ? 'expired' : state.kind, other(token, lang)));
      return send(reply, 422, formPage(lang, STYLE, state, path(token, lang), other(token, lang), result.reason));
    });
  });
}
