import { Type } from '@sinclair/typebox';
import type { CardRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { VaultIdParams } from '../schemas.js';

/**
 * DELETE {gateway}/v1/vaults/cards/{vaultId}: the card can no longer be read or charged (404
 * afterwards) and its encrypted number is wiped; payments already made keep their record.
 */
export function deleteVaultRoute(app: App, ctx: CardRouteDeps): void {
  app.delete(`${ctx.config.gatewayBasePath}/v1/vaults/cards/:vaultId`, {
    schema: {
      tags: ['Cards'],
      operationId: 'deleteVaultCard',
      description: 'Removes a stored card: later charges with its vaultId, and the subscriptions on it, are refused.',
      summary: 'Delete a stored card',
      security: security.gateway,
      params: VaultIdParams,
      response: {
        200: Type.Object({ vaultId: Type.String(), deletedAt: Type.String({ format: 'date-time' }) }),
        ...errorResponses(400, 401, 403, 404),
      },
    },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request) => ctx.cards.deleteVault(principalOf(request).merchantId, request.params.vaultId),
  });
}
