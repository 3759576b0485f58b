import type { RecurrenceRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { BillingDetail, BillingIdParams } from '../schemas.js';

/** GET {gateway}/v1/recurrences/billing/{billingId} (extension): the billing with its attemptsHistory. */
export function getBillingRoute(app: App, ctx: RecurrenceRouteDeps): void {
  app.get(`${ctx.config.gatewayBasePath}/v1/recurrences/billing/:billingId`, {
    schema: {
      tags: ['Billings'],
      operationId: 'getBilling',
      description: 'A billing by its billingId, with each charge attempt (payment, return code, when) and the next retry if one is scheduled.',
      summary: 'Get a billing with its charge attempts',
      security: security.gateway,
      params: BillingIdParams,
      response: { 200: BillingDetail, ...errorResponses(400, 401, 403, 404) },
    },
    onRequest: gatewayAuth(ctx, 'recurrence'),
    handler: async (request) => ctx.recurrence.billings.get(principalOf(request), request.params.billingId),
  });
}
