import type { DisputeRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { DisputeIdParams, DisputeResult } from '../schemas.js';

/** GET {gateway}/v1/disputes/{disputeId}. */
export function getDisputeRoute(app: App, ctx: DisputeRouteDeps): void {
  app.get(`${ctx.config.gatewayBasePath}/v1/disputes/:disputeId`, {
    schema: {
      tags: ['Disputes'],
      operationId: 'getDispute',
      summary: 'Get a dispute',
      description: 'A dispute with its reason (code and message in pt-BR), deadline and the evidence sent (files listed by name, type, size and SHA-256).',
      security: security.gateway,
      params: DisputeIdParams,
      response: { 200: DisputeResult, ...errorResponses(400, 401, 403, 404) },
    },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request) => ctx.disputes.get(principalOf(request).merchantId, request.params.disputeId),
  });
}
