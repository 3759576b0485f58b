import { Type } from '@sinclair/typebox';
import type { CardRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { Brand, EncryptedCard, NumberToken, PlainCardFields } from '../schemas.js';
import { EXAMPLES } from '../../../http/examples.js';

/**
 * POST {gateway}/v1/tokens/cards (extension): a single-use numberToken, valid 10 minutes.
 * The CVV, when sent, is held in memory only until the token is used or expires.
 */
export function createTokenRoute(app: App, ctx: CardRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/tokens/cards`, {
    schema: {
      tags: ['Cards'],
      operationId: 'createCardToken',
      summary: 'Tokenize a card',
      description: 'Send {encryptedCard} or {cardNumber, expirationMonth, expirationYear, securityCode?}, exactly one form. Accepts an Idempotency-Key header.',
      security: security.gateway,
      body: Type.Object({
        encryptedCard: Type.Optional(EncryptedCard),
        ...PlainCardFields,
        brand: Type.Optional(Brand),
      }, { examples: [EXAMPLES.createCardToken] }),
      response: { 201: NumberToken, ...errorResponses(400, 401, 403, 409) },
    },
    config: { idempotent: true },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request, reply) => reply.code(201).send(await ctx.cards.createToken(principalOf(request).merchantId, request.body)),
  });
}
