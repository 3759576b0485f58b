import { Type } from '@sinclair/typebox';
import type { MerchantRouteDeps } from '../route-deps.js';
import { EXAMPLES } from '../../../http/examples.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { CardSettings, MerchantIdParams } from '../schemas.js';

/** GET and PUT /admin/merchants/{merchantId}/card-settings: how the merchant's stored cards are checked. */
export function cardSettingsRoutes(app: App, ctx: MerchantRouteDeps): void {
  app.get('/admin/merchants/:merchantId/card-settings', {
    schema: {
      tags: ['Merchants'],
      operationId: 'getMerchantCardSettings',
      summary: "A merchant's card settings",
      description: 'verifyCardsOnSubscribe: a new subscription\'s stored card is checked with a zero auth first (off by default).',
      security: security.admin,
      params: MerchantIdParams,
      response: { 200: CardSettings, ...errorResponses(401, 404) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => ctx.merchants.cardSettings(request.params.merchantId),
  });
  app.put('/admin/merchants/:merchantId/card-settings', {
    schema: {
      tags: ['Merchants'],
      operationId: 'setMerchantCardSettings',
      summary: "Set a merchant's card settings",
      description: 'verifyCardsOnSubscribe true: creating a subscription checks its stored card with a zero auth, and a card the issuer refuses is answered 422 (tag `card`), with no subscription made.',
      security: security.admin,
      params: MerchantIdParams,
      body: Type.Object(CardSettings.properties, { examples: [EXAMPLES.setMerchantCardSettings] }),
      response: { 200: CardSettings, ...errorResponses(400, 401, 404) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => ctx.merchants.setCardSettings(request.params.merchantId, request.body),
  });
}
