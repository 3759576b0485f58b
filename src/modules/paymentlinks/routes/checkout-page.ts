import type { FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { PaymentLinkRouteDeps } from '../route-deps.js';
import type { App } from '../../../http/types.js';
import { checkoutPage, notFoundPage, type PageAssets } from '../checkout/page.js';

/**
 * Only our own files may run or style the page; nothing may frame it. Its one form post and
 * its one frame are the 3-D Secure challenge: the issuer's ACS (ours in the sandbox, an https
 * page otherwise).
 */
export const CHECKOUT_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
  "form-action 'self' https:; frame-src 'self' https:; frame-ancestors 'none'; base-uri 'none'";
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
export function checkoutPageRoute(app: App, ctx: PaymentLinkRouteDeps, assets: PageAssets): void {
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

/**
 * GET /pay/{id}/authenticated (no auth): where the payer's browser lands, in the checkout's
 * frame, after the 3-D Secure challenge (the payment's returnUrl). The link is settled from its
 * payment now; the checkout page reads this frame's address and moves on.
 */
export function checkoutAuthenticatedRoute(app: App, ctx: PaymentLinkRouteDeps): void {
  app.get('/pay/:id/authenticated', {
    schema: { hide: true, params: Type.Object({ id: Type.String() }) },
    handler: async (request, reply) => {
      const { id } = request.params;
      if (GUID.test(id)) await ctx.paymentLinks.checkout.afterChallenge(id);
      return reply
        .header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'self'; base-uri 'none'")
        .header('X-Content-Type-Options', 'nosniff')
        .header('Cache-Control', 'no-store')
        .type('text/html; charset=utf-8')
        .send('<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>Autenticação concluída</title></head><body><p>Autenticação concluída. Aguarde…</p></body></html>');
    },
  });
}
