import { Type } from '@sinclair/typebox';
import type { RecurrenceRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { IdString, sendJsonString } from '../schemas.js';
import { EXAMPLES } from '../../../http/examples.js';

/**
 * POST {gateway}/v1/recurrences/subscriptions: 201 with the subscription id as a JSON string.
 * Billing 1 is issued at once, due after the plan's trial days.
 */
export function createSubscriptionRoute(app: App, ctx: RecurrenceRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/recurrences/subscriptions`, {
    schema: {
      tags: ['Subscriptions'],
      operationId: 'createSubscription',
      summary: 'Subscribe a stored card, or a Pix payer, to a plan',
      description:
        'The plan must be Active (409). A CreditCard plan takes vaultId (POST /v1/vaults/cards, the caller\'s: 404 otherwise); billing 1 is due after trialDays ' +
        '(at once when 0). A Pix plan takes payer {documentNumber (CPF or CNPJ), name} instead (Pix Automático): the subscription is PendingAuthorization, ' +
        'and GET shows pixAuthorization.pixEmv, the code the payer scans to authorize the recurrence and pay billing 1; sending the other field is 400. ' +
        'Accepts an Idempotency-Key header.',
      security: security.gateway,
      body: Type.Object({
        vaultId: Type.Optional(Type.String({ minLength: 1, maxLength: 36, description: 'CreditCard plans: the stored card charged' })),
        orderNumber: Type.String({ minLength: 1, maxLength: 10 }),
        planId: Type.String({ minLength: 1, maxLength: 36 }),
        payer: Type.Optional(
          Type.Object(
            { documentNumber: Type.String({ minLength: 1, maxLength: 18, description: 'CPF or CNPJ (punctuation allowed)' }), name: Type.String({ minLength: 1, maxLength: 140 }) },
            { description: 'Pix plans: who authorizes and pays the recurrence' },
          ),
        ),
      }, { examples: [EXAMPLES.createSubscription] }),
      response: { 201: IdString, ...errorResponses(400, 401, 403, 404, 409, 422, 502) },
    },
    config: { idempotent: true },
    onRequest: gatewayAuth(ctx, 'recurrence'),
    handler: async (request, reply) => sendJsonString(reply, 201, await ctx.recurrence.subscriptions.create(principalOf(request), request.body)),
  });
}
