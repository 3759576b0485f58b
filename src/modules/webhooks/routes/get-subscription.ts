import type { WebhookRouteDeps } from '../route-deps.js';
import { integrationAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import { requireOwnAccount } from '../../../http/ownership.js';
import type { App } from '../../../http/types.js';
import { AccountQuery, SubscriptionView } from '../schemas.js';

/** GET {integration}/api/webhooks/subscriptions?accountNumber=: the registered URL (404 when none). */
export function getSubscriptionRoute(app: App, ctx: WebhookRouteDeps): void {
  app.get(`${ctx.config.integrationBasePath}/api/webhooks/subscriptions`, {
    schema: {
      tags: ['Webhooks'],
      operationId: 'getWebhookSubscription',
      summary: 'The registered webhook URL',
      description: 'Secrets are never shown here: basicAuth says only whether credentials are registered; POST again to see the signing secret.',
      security: security.integration,
      querystring: AccountQuery,
      response: { 200: SubscriptionView, ...errorResponses(400, 401, 403, 404) },
    },
    onRequest: integrationAuth(ctx),
    handler: async (request) => ctx.webhooks.get(requireOwnAccount(principalOf(request), request.query.accountNumber)),
  });
}
