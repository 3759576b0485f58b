import type { PaymentLinkRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { InformationQuery, PaymentLinkView } from '../schemas.js';

/** GET {gateway}/v1/paymentlink/information?id= (seed "Payment link lookup"): the link with its history. */
export function getInformationRoute(app: App, ctx: PaymentLinkRouteDeps): void {
  app.get(`${ctx.config.gatewayBasePath}/v1/paymentlink/information`, {
    schema: {
      tags: ['Payment links'],
      operationId: 'getPaymentLinkInformation',
      summary: 'Payment link details and history',
      description: 'status/statusFormat: 1 Em Aberto, 2 Pago, 3 Expirado, 9 Desativado. A malformed id is 400; an unknown or another merchant\'s id is 404.',
      security: security.gateway,
      querystring: InformationQuery,
      response: { 200: PaymentLinkView, ...errorResponses(400, 401, 403, 404) },
    },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request) => ctx.paymentLinks.information(principalOf(request).merchantId, request.query.id),
  });
}
