import type { PaymentRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { PaymentIdParams, PaymentResult } from '../schemas.js';

/** POST {gateway}/v1/payments/{paymentId}/cancel (extension): Authorized or Blocked -> Canceled; otherwise 409. */
export function cancelPaymentRoute(app: App, ctx: PaymentRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/payments/:paymentId/cancel`, {
    schema: {
      tags: ['Payments'],
      operationId: 'cancelPayment',
      description: 'Cancels an Authorized or Blocked card payment for its whole amount; the acquirer is asked first and the answer is recorded.',
      summary: 'Cancel a card payment in full',
      security: security.gateway,
      params: PaymentIdParams,
      response: { 200: PaymentResult, ...errorResponses(401, 403, 404, 409, 502) },
    },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request) => ctx.payments.cancel(principalOf(request).merchantId, request.params.paymentId),
  });
}
