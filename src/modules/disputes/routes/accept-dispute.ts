import type { DisputeRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { DisputeIdParams, DisputeResult } from '../schemas.js';

/** POST {gateway}/v1/disputes/{disputeId}/accept: the merchant accepts the chargeback. */
export function acceptDisputeRoute(app: App, ctx: DisputeRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/disputes/:disputeId/accept`, {
    schema: {
      tags: ['Disputes'],
      operationId: 'acceptDispute',
      summary: 'Accept a dispute',
      description:
        'Closed as lost (Accepted): the disputed amount is taken back from the receivables, as when the card network decides against the merchant. ' +
        "A MED claim (pix_med) accepted waits, held, for the PSP's MED return, which closes it (closedAt null until then). 409 when decided already.",
      security: security.gateway,
      params: DisputeIdParams,
      response: { 200: DisputeResult, ...errorResponses(400, 401, 403, 404, 409) },
    },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request) => ctx.disputes.accept(principalOf(request).merchantId, request.params.disputeId),
  });
}
