import { Type } from '@sinclair/typebox';
import type { PaymentLinkRouteDeps } from '../route-deps.js';
import { errorResponses } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { CheckoutPaymentBody, CheckoutPaymentResult, GUID } from '../schemas.js';

/**
 * POST /pay/{id}/payments (no auth): what the checkout page calls. Rate limited per IP and
 * per link (429 with Retry-After), counted before the body is even read.
 */
export function checkoutPayRoute(app: App, ctx: PaymentLinkRouteDeps): void {
  app.post('/pay/:id/payments', {
    schema: {
      tags: ['Payment links'],
      operationId: 'payPaymentLink',
      security: [],
      summary: 'Pay a payment link (the hosted checkout page calls this)',
      description:
        'Public. The card travels only as encryptedCard (RSA-OAEP SHA-256 with GET {gateway}/cards/public-key). ' +
        'Goes through anti-fraud and the acquirer like POST /v1/payments. 201 for approvals and declines (see paid); ' +
        '409 link_paid, link_expired, link_deactivated or payment_in_progress; 429 rate_limited.',
      params: Type.Object({ id: Type.String({ pattern: GUID }) }),
      body: CheckoutPaymentBody,
      response: { 201: CheckoutPaymentResult, ...errorResponses(400, 404, 409, 429, 502) },
    },
    onRequest: async (request) => {
      const { id } = request.params as { id: string };
      await ctx.paymentLinks.checkout.countAttempt(request.ip, id);
    },
    handler: async (request, reply) => {
      const result = await ctx.paymentLinks.checkout.pay(request.params.id, request.body, request.ip, request.headers.accept);
      return reply.code(201).send(result);
    },
  });
}
