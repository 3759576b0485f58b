import type { FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import type { App } from '../../../http/types.js';
import { checkoutPage, notFoundPage, type PageAssets } from '../checkout/page.js';

/** Only our own files may run or style the page; nothing may frame it or take its forms elsewhere. */
export const CHECKOUT_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
  "form-action 'none'; frame-ancestors 'none'; base-uri 'none'";
const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

function sendPage(reply: FastifyReply, status: number, body: string) {
  return reply
    .code(status)
    .header('Content-Security-Policy', CHECKOUT_CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .header('X-Frame-Options', 'DENY')
    .header('Referrer-Policy', 'no-referrer')
    // The page shows the link's current state: never from a cache.
    .header('Cache-Control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(body);
}

/** GET /pay/{id} (no auth): the hosted checkout, or why the link cannot be paid. Answers HTML, also for 404. */
export function checkoutPageRoute(app: App, ctx: AppContext, assets: PageAssets): void {
  app.get('/pay/:id', {
    schema: { hide: true, params: Type.Object({ id: Type.String() }) },
    handler: async (request, reply) => {
      const { id } = request.params;
      const row = GUID.test(id) ? await ctx.paymentLinks.current(id) : undefined;
      if (!row) return sendPage(reply, 404, notFoundPage(assets));
      const publicKeyUrl = `${ctx.config.gatewayBasePath}/cards/public-key`;
      return sendPage(reply, 200, checkoutPage(row, { assets, publicKeyUrl }));
    },
  });
}
