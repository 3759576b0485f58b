import type { CardRouteDeps } from '../route-deps.js';
import { EXAMPLES } from '../../../http/examples.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { ZeroAuthAnswer, ZeroAuthBody } from '../schemas.js';
import { zeroAuth } from '../zero-auth.js';
import { Type } from '@sinclair/typebox';

/** POST {gateway}/v1/zero-auth: checks a card with its issuer without charging it. */
export function zeroAuthRoute(app: App, ctx: CardRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/zero-auth`, {
    schema: {
      tags: ['Cards'],
      operationId: 'zeroAuth',
      summary: 'Check a card without charging it (zero auth)',
      description:
        'Exactly one card source: {numberToken} (read, not used up), {vaultId}, {encryptedCard} or {cardNumber, expirationMonth, expirationYear}; plus cardholderName and securityCode when known. None or two sources: 400 naming cardInfo. Nothing is charged; a refused card is answered 200 with cardAuthSuccess false and its declineCategory.',
      security: security.gateway,
      body: Type.Object(ZeroAuthBody.properties, { examples: [EXAMPLES.zeroAuth] }),
      response: { 200: ZeroAuthAnswer, ...errorResponses(400, 401, 403, 404, 502) },
    },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request) => zeroAuth(ctx.cards, principalOf(request).merchantId, request.body),
  });
}
