import type { CardRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { VaultCard, VaultIdParams } from '../schemas.js';

/** GET {gateway}/v1/vaults/cards/{vaultId}: another merchant's or a deleted card is 404. */
export function getVaultRoute(app: App, ctx: CardRouteDeps): void {
  app.get(`${ctx.config.gatewayBasePath}/v1/vaults/cards/:vaultId`, {
    schema: {
      tags: ['Cards'],
      operationId: 'getVaultCard',
      description: 'A stored card by its vaultId: brand, masked number, expiry and holder; never the full number.',
      summary: 'Get a stored card',
      security: security.gateway,
      params: VaultIdParams,
      response: { 200: VaultCard, ...errorResponses(400, 401, 403, 404) },
    },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request) => ctx.cards.getVault(principalOf(request).merchantId, request.params.vaultId),
  });
}
