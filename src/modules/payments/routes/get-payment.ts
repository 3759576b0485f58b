import type { PaymentRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { PaymentIdParams, PaymentResult } from '../schemas.js';

/** GET {gateway}/v1/payments/{paymentId} (extension). */
export function getPaymentRoute(app: App, ctx: PaymentRouteDeps): void {
  app.get(`${ctx.config.gatewayBasePath}/v1/payments/:paymentId`, {
    schema: {
      tags: ['Payments'],
      operationId: 'getPayment',
      description: 'A card payment by its paymentId: status, amounts, installments, return code and the acquirer references.',
      summary: 'Get a card payment',
      security: security.gateway,
      params: PaymentIdParams,
      response: { 200: PaymentResult, ...errorResponses(400, 401, 403, 404) },
    },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request) => ctx.payments.get(principalOf(request).merchantId, request.params.paymentId),
  });
}
