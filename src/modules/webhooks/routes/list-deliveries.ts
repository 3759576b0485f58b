import type { WebhookRouteDeps } from '../route-deps.js';
import { integrationAuth, principalOf } from '../../../http/guards.js';
import { listEnvelope } from '../../../http/listing.js';
import { errorResponses, security } from '../../../http/openapi.js';
import { requireOwnAccount } from '../../../http/ownership.js';
import type { App } from '../../../http/types.js';
import { DeliveriesQuery, Delivery } from '../schemas.js';

/** GET {integration}/api/webhooks/deliveries?accountNumber= (extension): the delivery log. */
export function listDeliveriesRoute(app: App, ctx: WebhookRouteDeps): void {
  app.get(`${ctx.config.integrationBasePath}/api/webhooks/deliveries`, {
    schema: {
      tags: ['Webhooks'],
      operationId: 'listWebhookDeliveries',
      summary: 'Delivery log of webhooks and payment callbacks',
      description:
        'Every notification with its status and every attempt (time, status code or error, duration). Filters: status, channel, ' +
        'startDate/endDate on the notification time. orderBy over movementId, createdDate, status, type (default createdDate:desc).',
      security: security.integration,
      querystring: DeliveriesQuery,
      response: { 200: listEnvelope(Delivery), ...errorResponses(400, 401, 403) },
    },
    onRequest: integrationAuth(ctx),
    handler: async (request) => ctx.webhooks.deliveries(requireOwnAccount(principalOf(request), request.query.accountNumber), request.query),
  });
}
