import type { PixRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { PixCharge, PixChargeParams } from '../schemas.js';

/** GET {gateway}/v1/pix/charges/{id} (extension); another merchant's charge is 404. */
export function getChargeRoute(app: App, ctx: PixRouteDeps): void {
  app.get(`${ctx.config.gatewayBasePath}/v1/pix/charges/:id`, {
    schema: {
      tags: ['Pix'],
      operationId: 'getPixCharge',
      description: 'A Pix charge by its id: status, amount, the BR Code (copy and paste) and, once paid, when.',
      summary: 'Get a Pix charge',
      security: security.gateway,
      params: PixChargeParams,
      response: { 200: PixCharge, ...errorResponses(401, 403, 404) },
    },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request) => ctx.pix.get(principalOf(request).merchantId, request.params.id),
  });
}
