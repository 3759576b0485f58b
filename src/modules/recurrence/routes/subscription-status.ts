import { Type } from '@sinclair/typebox';
import type { RecurrenceRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { IdObject, SubscriptionIdParams } from '../schemas.js';
import { EXAMPLES } from '../../../http/examples.js';

/** POST {gateway}/v1/recurrences/subscriptions/{subscriptionId}/status: `Actived` or `Canceled` -> `{id}`. */
export function subscriptionStatusRoute(app: App, ctx: RecurrenceRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/recurrences/subscriptions/:subscriptionId/status`, {
    schema: {
      tags: ['Subscriptions'],
      operationId: 'changeSubscriptionStatus',
      summary: 'Reactivate or cancel a subscription',
      description:
        'Actived -> Active (also from Blocked and Canceled): a new billing is due at that moment. Canceled -> Canceled with its Opened billings. ' +
        'A Finished subscription, or reactivating under a Canceled plan, is 409. ' +
        "A Pix subscription's recurrence is cancelled at the PSP first: a refusal the PSP still answers is 409 pix_provider_refused with its reason, a PSP that does not answer 503, and nothing changes.",
      security: security.gateway,
      params: SubscriptionIdParams,
      body: Type.Object({ status: Type.Union([Type.Literal('Actived'), Type.Literal('Canceled')]) }, { examples: [EXAMPLES.changeSubscriptionStatus] }),
      response: { 200: IdObject, ...errorResponses(400, 401, 403, 404, 409, 503) },
    },
    onRequest: gatewayAuth(ctx, 'recurrence'),
    handler: async (request) => ctx.recurrence.subscriptions.setStatus(principalOf(request), request.params.subscriptionId, request.body.status),
  });
}
