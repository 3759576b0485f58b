import type { PixRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { PixCharge, PixChargeBody } from '../schemas.js';

/** POST {gateway}/v1/pix/charges (extension): a Pending charge with its dynamic BR Code. */
export function createChargeRoute(app: App, ctx: PixRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/pix/charges`, {
    schema: {
      tags: ['Pix'],
      operationId: 'createPixCharge',
      summary: 'Create a Pix charge',
      description: 'Unpaid charges become Expired after expiresIn seconds. Accepts an Idempotency-Key header.',
      security: security.gateway,
      body: PixChargeBody,
      response: { 201: PixCharge, ...errorResponses(400, 401, 403, 409) },
    },
    config: { idempotent: true },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request, reply) => reply.code(201).send(await ctx.pix.create(principalOf(request), request.body)),
  });
}
