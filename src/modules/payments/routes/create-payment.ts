import type { PaymentRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { PaymentBody, PaymentResult } from '../schemas.js';

/** POST {gateway}/v1/payments: authorize a credit card payment (seed "Card payment", contract section 6). */
export function createPaymentRoute(app: App, ctx: PaymentRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/payments`, {
    schema: {
      tags: ['Payments'],
      operationId: 'createPayment',
      summary: 'Create a card payment',
      description:
        'One card source: numberToken, encryptedCard or vaultId. 201 for every decision (Authorized, Denied, Blocked); ' +
        '502 when the acquirer fails (nothing is charged). Accepts an Idempotency-Key header.',
      security: security.gateway,
      body: PaymentBody,
      response: { 201: PaymentResult, ...errorResponses(400, 401, 403, 404, 409, 502) },
    },
    config: { idempotent: true },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request, reply) => {
      const principal = principalOf(request);
      const outcome = await ctx.payments.create(principal, request.body);
      // A payment recorded with its state is 201, whatever the decision; an acquirer that failed
      // or did not answer is the outcome's error (502).
      if (outcome.kind !== 'recorded') throw outcome.error;
      return reply.code(201).send(outcome.payment);
    },
  });
}
