import type { RecurrenceRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { BillingIdParams, IdString, sendJsonString } from '../schemas.js';

/** POST {gateway}/v1/recurrences/billing/{billingId}/cancel: only an Opened billing, a Pix one before its due date in Brasília (409 otherwise). */
export function cancelBillingRoute(app: App, ctx: RecurrenceRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/recurrences/billing/:billingId/cancel`, {
    schema: {
      tags: ['Billings'],
      operationId: 'cancelBilling',
      summary: 'Cancel an Opened billing',
      description:
        'The subscription goes on: its next billing is issued, due interval days after this one. ' +
        "A Pix billing whose charge (cobr) was sent is cancelled at the PSP first, and only before its due date as a Brasília (America/Sao_Paulo) date, the API Pix's first settlement date: " +
        'from 00:00 there on that date it is 409 with tag expireAt and nothing is sent. A refusal the PSP still answers is 409 pix_provider_refused with its reason; a PSP that does not answer, 503. Either way nothing changes.',
      security: security.gateway,
      params: BillingIdParams,
      response: { 200: IdString, ...errorResponses(400, 401, 403, 404, 409, 503) },
    },
    onRequest: gatewayAuth(ctx, 'recurrence'),
    handler: async (request, reply) => sendJsonString(reply, 200, await ctx.recurrence.billings.cancel(principalOf(request), request.params.billingId)),
  });
}
