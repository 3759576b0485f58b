import type { WebhookRouteDeps } from '../route-deps.js';
import { integrationAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import { requireOwnAccount } from '../../../http/ownership.js';
import type { App } from '../../../http/types.js';
import { AccountQuery, SubscriptionBody, SubscriptionCreated } from '../schemas.js';

/** POST {integration}/api/webhooks/subscriptions?accountNumber=: registers or replaces the account's one URL. */
export function subscribeRoute(app: App, ctx: WebhookRouteDeps): void {
  app.post(`${ctx.config.integrationBasePath}/api/webhooks/subscriptions`, {
    schema: {
      tags: ['Webhooks'],
      operationId: 'createWebhookSubscription',
      summary: 'Register (or replace) the webhook URL',
      description:
        'One URL per account: a second POST replaces the first, and pending notifications go to the new URL. Answers the URL and the ' +
        'Standard Webhooks signing secret (kept across replacements unless rotateSecret is true). The URL must be absolute http(s); in ' +
        'production it must be https and resolve only to public addresses. basicAuth is Base64 of user:password.',
      security: security.integration,
      querystring: AccountQuery,
      body: SubscriptionBody,
      response: { 200: SubscriptionCreated, ...errorResponses(400, 401, 403) },
    },
    onRequest: integrationAuth(ctx),
    handler: async (request) => {
      const principal = principalOf(request);
      const accountNumber = requireOwnAccount(principal, request.query.accountNumber);
      return ctx.webhooks.subscribe(principal.merchantId, accountNumber, request.body);
    },
  });
}
