import type { PixRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { PixChargeParams, PixRefund, PixRefundBody } from '../schemas.js';

/** POST {gateway}/v1/pix/charges/{id}/refunds (extension): a devolução of a paid charge. */
export function createRefundRoute(app: App, ctx: PixRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/pix/charges/:id/refunds`, {
    schema: {
      tags: ['Pix'],
      operationId: 'createPixRefund',
      summary: 'Refund a Pix charge (devolução)',
      description:
        'Returns part or all of what is left of a Paid charge to its payer. Several partial refunds add up to at most the amount paid; past it, 0, or a charge not Paid is refused (400 amount, 409 status) and nothing is sent. Accepts an Idempotency-Key header.',
      security: security.gateway,
      params: PixChargeParams,
      body: PixRefundBody,
      response: { 201: PixRefund, ...errorResponses(400, 401, 403, 404, 409) },
    },
    config: { idempotent: true },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request, reply) => reply.code(201).send(await ctx.pix.refunds.create(principalOf(request).merchantId, request.params.id, request.body)),
  });
}
