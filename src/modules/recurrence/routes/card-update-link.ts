import type { RecurrenceRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { CardUpdateLink, SubscriptionIdParams } from '../schemas.js';

/** POST {gateway}/v1/recurrences/subscriptions/{subscriptionId}/card-update-link: a page for the customer to replace the card. */
export function cardUpdateLinkRoute(app: App, ctx: RecurrenceRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/recurrences/subscriptions/:subscriptionId/card-update-link`, {
    schema: {
      tags: ['Subscriptions'],
      operationId: 'createCardUpdateLink',
      summary: "A link where the customer replaces a subscription's card",
      description:
        'Answers {url, expiresAt} of a hosted page (pt-BR and en) showing only the brand and last four digits of the current card. The new card is checked (zero auth), stored, made the subscription\'s card, and the failed billing is charged again at once (a Blocked subscription is reactivated). The link works once and expires after 7 days. 409 for a Canceled, Finished or Pix subscription.',
      security: security.gateway,
      params: SubscriptionIdParams,
      response: { 201: CardUpdateLink, ...errorResponses(400, 401, 403, 404, 409) },
    },
    onRequest: gatewayAuth(ctx, 'recurrence'),
    handler: async (request, reply) => reply.code(201).send(await ctx.recurrence.cardLinks.create(principalOf(request), request.params.subscriptionId)),
  });
}
