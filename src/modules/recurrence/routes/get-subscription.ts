import type { RecurrenceRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { Subscription, SubscriptionIdParams } from '../schemas.js';

/** GET {gateway}/v1/recurrences/subscriptions/{subscriptionId}: with its plan embedded. */
export function getSubscriptionRoute(app: App, ctx: RecurrenceRouteDeps): void {
  app.get(`${ctx.config.gatewayBasePath}/v1/recurrences/subscriptions/:subscriptionId`, {
    schema: {
      tags: ['Subscriptions'],
      operationId: 'getSubscription',
      description: 'A subscription by its subscriptionId: plan, stored card, status and the next billing date.',
      summary: 'Get a subscription',
      security: security.gateway,
      params: SubscriptionIdParams,
      response: { 200: Subscription, ...errorResponses(400, 401, 403, 404) },
    },
    onRequest: gatewayAuth(ctx, 'recurrence'),
    handler: async (request) => ctx.recurrence.subscriptions.get(principalOf(request), request.params.subscriptionId),
  });
}
