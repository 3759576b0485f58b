import type { PaymentLinkRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { LinkIdParams, PaymentLinkView } from '../schemas.js';

/** POST {gateway}/v1/paymentlink/{id}/deactivate (extension): Em Aberto -> Desativado; any other status is 409. */
export function deactivateLinkRoute(app: App, ctx: PaymentLinkRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/paymentlink/:id/deactivate`, {
    schema: {
      tags: ['Payment links'],
      operationId: 'deactivatePaymentLink',
      summary: 'Deactivate a payment link',
      description: 'Only an open link (status 1). While a payer\'s payment is being processed the answer is 409 payment_in_progress.',
      security: security.gateway,
      params: LinkIdParams,
      response: { 200: PaymentLinkView, ...errorResponses(400, 401, 403, 404, 409) },
    },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request) => ctx.paymentLinks.deactivate(principalOf(request).merchantId, request.params.id),
  });
}
