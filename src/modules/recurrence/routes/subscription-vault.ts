import { Type } from '@sinclair/typebox';
import type { RecurrenceRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { IdObject, SubscriptionIdParams } from '../schemas.js';
import { EXAMPLES } from '../../../http/examples.js';

/** POST {gateway}/v1/recurrences/subscriptions/{subscriptionId}/vault: later charges use this stored card. */
export function subscriptionVaultRoute(app: App, ctx: RecurrenceRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/recurrences/subscriptions/:subscriptionId/vault`, {
    schema: {
      tags: ['Subscriptions'],
      operationId: 'swapSubscriptionVault',
      description: 'Charges the later billings of a subscription to another stored card of the same merchant.',
      summary: 'Swap the stored card of a subscription',
      security: security.gateway,
      params: SubscriptionIdParams,
      body: Type.Object({ vaultId: Type.String({ minLength: 1, maxLength: 36 }) }, { examples: [EXAMPLES.swapSubscriptionVault] }),
      response: { 200: IdObject, ...errorResponses(400, 401, 403, 404) },
    },
    onRequest: gatewayAuth(ctx, 'recurrence'),
    handler: async (request) => ctx.recurrence.subscriptions.setVault(principalOf(request), request.params.subscriptionId, request.body.vaultId),
  });
}
