import { Type } from '@sinclair/typebox';
import type { RecurrenceRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { ListQuery, listEnvelope } from '../../../http/listing.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { Subscription, SubscriptionStatus } from '../schemas.js';

/** GET {gateway}/v1/recurrences/subscriptions: list envelope; `planName` matches a part of the plan's name, any case. */
export function listSubscriptionsRoute(app: App, ctx: RecurrenceRouteDeps): void {
  app.get(`${ctx.config.gatewayBasePath}/v1/recurrences/subscriptions`, {
    schema: {
      tags: ['Subscriptions'],
      operationId: 'listSubscriptions',
      summary: 'List subscriptions',
      description: 'orderBy over id, vaultId, orderNumber, status, createdDate, createdBy.',
      security: security.gateway,
      querystring: Type.Composite([
        ListQuery,
        Type.Object({ planName: Type.Optional(Type.String({ maxLength: 255 })), status: Type.Optional(SubscriptionStatus) }),
      ]),
      response: { 200: listEnvelope(Subscription), ...errorResponses(400, 401, 403) },
    },
    onRequest: gatewayAuth(ctx, 'recurrence'),
    handler: async (request) => ctx.recurrence.subscriptions.list(principalOf(request), request.query),
  });
}
