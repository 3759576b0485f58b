import { Type } from '@sinclair/typebox';
import type { CardRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { CARDHOLDER_NAME_MAX } from '../service.js';
import { EncryptedCard, PlainCardFields, VaultCard } from '../schemas.js';
import { EXAMPLES } from '../../../http/examples.js';

/**
 * POST {gateway}/v1/vaults/cards (extension): stores a card for later charges (subscriptions,
 * payments by vaultId). A numberToken used here is consumed; a CVV is ignored, never stored.
 */
export function createVaultRoute(app: App, ctx: CardRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/vaults/cards`, {
    schema: {
      tags: ['Cards'],
      operationId: 'createVaultCard',
      summary: 'Store a card in the vault',
      description: 'Exactly one source: {numberToken}, {encryptedCard} or {cardNumber, expirationMonth, expirationYear}; plus cardholderName. Accepts an Idempotency-Key header.',
      security: security.gateway,
      body: Type.Object({
        numberToken: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        encryptedCard: Type.Optional(EncryptedCard),
        ...PlainCardFields,
        cardholderName: Type.String({ minLength: 1, maxLength: CARDHOLDER_NAME_MAX }),
        verify: Type.Optional(Type.Boolean({ description: 'Check the card with a zero auth first (securityCode goes to it, never stored); a refused card is a 422 (tag card) and nothing is stored' })),
      }, { examples: [EXAMPLES.createVaultCard] }),
      response: { 201: VaultCard, ...errorResponses(400, 401, 403, 404, 409, 422, 502) },
    },
    config: { idempotent: true },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request, reply) => {
      const { cardholderName, verify, ...source } = request.body;
      return reply.code(201).send(await ctx.cards.createVault(principalOf(request).merchantId, source, cardholderName, { verify: verify === true }));
    },
  });
}
