import type { AppContext } from '../../../context.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { BillingIdParams, IdString, sendJsonString } from '../schemas.js';

/** POST {gateway}/v1/recurrences/billing/{billingId}/cancel: only an Opened billing (409 otherwise). */
export function cancelBillingRoute(app: App, ctx: AppContext): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/recurrences/billing/:billingId/cancel`, {
    schema: {
      tags: ['Billings'],
      operationId: 'cancelBilling',
      summary: 'Cancel an Opened billing',
      description: 'The subscription goes on: its next billing is issued, due interval days after this one.',
      security: security.gateway,
      params: BillingIdParams,
      response: { 200: IdString, ...errorResponses(400, 401, 403, 404, 409) },
    },
    onRequest: gatewayAuth(ctx, 'recurrence'),
    handler: async (request, reply) => sendJsonString(reply, 200, await ctx.recurrence.billings.cancel(principalOf(request), request.params.billingId)),
  });
}
