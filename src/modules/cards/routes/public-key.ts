import type { CardRouteDeps } from '../route-deps.js';
import type { App } from '../../../http/types.js';
import { CardPublicKey } from '../schemas.js';

/**
 * GET {gateway}/cards/public-key (no auth): the RSA key browsers and integrators encrypt card
 * data with. Public by nature; the checkout page fetches it without a token.
 */
export function publicKeyRoute(app: App, ctx: CardRouteDeps): void {
  app.get(`${ctx.config.gatewayBasePath}/cards/public-key`, {
    schema: {
      tags: ['Cards'],
      operationId: 'getCardPublicKey',
      security: [],
      summary: 'The public key for encryptedCard',
      description: 'Keys rotate; a card encrypted with the previous key is still accepted for 24 hours after rotation.',
      response: { 200: CardPublicKey },
    },
    handler: async () => ctx.cardKeys.publicKey(),
  });
}
