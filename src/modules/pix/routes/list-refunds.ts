import type { PixRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { PixChargeParams, PixRefundList } from '../schemas.js';

/** GET {gateway}/v1/pix/charges/{id}/refunds (extension): the charge's refunds, oldest first. */
export function listRefundsRoute(app: App, ctx: PixRouteDeps): void {
  app.get(`${ctx.config.gatewayBasePath}/v1/pix/charges/:id/refunds`, {
    schema: {
      tags: ['Pix'],
      operationId: 'listPixRefunds',
      summary: "List a Pix charge's refunds",
      description: 'Every refund of the charge in the order they were made, with its status.',
      security: security.gateway,
      params: PixChargeParams,
      response: { 200: PixRefundList, ...errorResponses(401, 403, 404) },
    },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request) => ctx.pix.refunds.list(principalOf(request).merchantId, request.params.id),
  });
}
