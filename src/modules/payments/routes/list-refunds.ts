import type { PaymentRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { PaymentIdParams, RefundList } from '../schemas.js';

/** GET {gateway}/v1/payments/{paymentId}/refunds: a payment's refunds, in the order they were made. */
export function listRefundsRoute(app: App, ctx: PaymentRouteDeps): void {
  app.get(`${ctx.config.gatewayBasePath}/v1/payments/:paymentId/refunds`, {
    schema: {
      tags: ['Payments'],
      operationId: 'listRefunds',
      summary: "List a card payment's refunds",
      description: 'Every refund of the payment, oldest first, with its status (a Pending one settles to Succeeded or Failed).',
      security: security.gateway,
      params: PaymentIdParams,
      response: { 200: RefundList, ...errorResponses(400, 401, 403, 404) },
    },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request) => ctx.payments.refunds.list(principalOf(request).merchantId, request.params.paymentId),
  });
}
