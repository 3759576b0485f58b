import type { DisputeRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { DisputeList, DisputeQuery } from '../schemas.js';

/** GET {gateway}/v1/disputes: the merchant's disputes, in the list envelope. */
export function listDisputesRoute(app: App, ctx: DisputeRouteDeps): void {
  app.get(`${ctx.config.gatewayBasePath}/v1/disputes`, {
    schema: {
      tags: ['Disputes'],
      operationId: 'listDisputes',
      summary: 'List disputes',
      description: 'The merchant\'s disputes, filtered by status and creation date (startDate, endDate), newest first by default; orderBy createdDate, respondBy, amount or status.',
      security: security.gateway,
      querystring: DisputeQuery,
      response: { 200: DisputeList, ...errorResponses(400, 401, 403) },
    },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request) => ctx.disputes.list(principalOf(request).merchantId, request.query),
  });
}
