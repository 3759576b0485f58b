import type { WebhookRouteDeps } from '../route-deps.js';
import { integrationAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import { requireOwnAccount } from '../../../http/ownership.js';
import type { App } from '../../../http/types.js';
import { AccountQuery, Delivery, MovementParams } from '../schemas.js';

/** POST {integration}/api/webhooks/deliveries/{movementId}/redeliver?accountNumber= (extension). */
export function redeliverRoute(app: App, ctx: WebhookRouteDeps): void {
  app.post(`${ctx.config.integrationBasePath}/api/webhooks/deliveries/:movementId/redeliver`, {
    schema: {
      tags: ['Webhooks'],
      operationId: 'redeliverWebhook',
      summary: 'Send a notification again',
      description:
        'Answers 202: the notification is Pending and due now, with a fresh 72-hour retry window. 404 for another account\'s movementId; ' +
        '409 while an attempt is in flight, or for a webhook when no URL is registered.',
      security: security.integration,
      params: MovementParams,
      querystring: AccountQuery,
      response: { 202: Delivery, ...errorResponses(400, 401, 403, 404, 409) },
    },
    onRequest: integrationAuth(ctx),
    handler: async (request, reply) => {
      const accountNumber = requireOwnAccount(principalOf(request), request.query.accountNumber);
      return reply.code(202).send(await ctx.webhooks.redeliver(accountNumber, Number(request.params.movementId)));
    },
  });
}
