import type { PaymentRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { PaymentIdParams, RefundBody, RefundResult } from '../schemas.js';

/** POST {gateway}/v1/payments/{paymentId}/refunds: a partial or full refund of a captured card payment. */
export function createRefundRoute(app: App, ctx: PaymentRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/payments/:paymentId/refunds`, {
    schema: {
      tags: ['Payments'],
      operationId: 'createRefund',
      summary: 'Refund a card payment, in part or in full',
      description:
        'Refunds `amount` cents (by default what is left) of an Authorized or Paid payment; several partial refunds may follow each other ' +
        'up to the amount, one at a time. 201 with the refund: Succeeded, Failed (with returnMessage; nothing refunded) or Pending ' +
        "(the acquirer's answer was lost: it is resolved from the acquirer's record, never sent again). Refunded in full, the payment becomes " +
        'Canceled. 400 (tag amount) for more than what is left; 409 (tag status) for a payment in another status or while a refund of it is ' +
        'Pending; in both cases nothing is sent or written. Accepts an Idempotency-Key header.',
      security: security.gateway,
      params: PaymentIdParams,
      body: RefundBody,
      response: { 201: RefundResult, ...errorResponses(400, 401, 403, 404, 409) },
    },
    config: { idempotent: true },
    onRequest: gatewayAuth(ctx, 'payments'),
    // No body at all is `{}`: the amount is optional, so the body is too.
    preValidation: async (request) => {
      if (request.body === undefined || request.body === null) request.body = {};
    },
    handler: async (request, reply) => reply.code(201).send(await ctx.payments.refunds.create(principalOf(request).merchantId, request.params.paymentId, request.body)),
  });
}
