import { Type } from '@sinclair/typebox';
import type { WebhookRouteDeps } from '../route-deps.js';
import { integrationAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import { requireOwnAccount } from '../../../http/ownership.js';
import type { App } from '../../../http/types.js';
import { AccountQuery } from '../schemas.js';

/** DELETE {integration}/api/webhooks/subscriptions?accountNumber=: notifications stop. */
export function deleteSubscriptionRoute(app: App, ctx: WebhookRouteDeps): void {
  app.delete(`${ctx.config.integrationBasePath}/api/webhooks/subscriptions`, {
    schema: {
      tags: ['Webhooks'],
      operationId: 'deleteWebhookSubscription',
      summary: 'Remove the webhook URL',
      description: 'Answers the removed URL. Notifications stop at once: those still pending end with status Canceled. 404 when none is registered.',
      security: security.integration,
      querystring: AccountQuery,
      response: { 200: Type.Object({ url: Type.String() }), ...errorResponses(400, 401, 403, 404) },
    },
    onRequest: integrationAuth(ctx),
    handler: async (request) => ctx.webhooks.remove(requireOwnAccount(principalOf(request), request.query.accountNumber)),
  });
}
