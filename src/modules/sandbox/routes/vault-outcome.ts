import { Type } from '@sinclair/typebox';
import { RETURN_MESSAGES } from '../../../acquirer/types.js';
import type { SandboxRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { EXAMPLES } from '../../../http/examples.js';

const CODES = Object.keys(RETURN_MESSAGES);

/**
 * POST /sandbox/vaults/{vaultId}/outcome {returnCode}: every later charge of that stored card
 * answers with that code (to play retries, a cancelled card, a recovery). `null` clears it.
 */
export function vaultOutcomeRoute(app: App, ctx: SandboxRouteDeps): void {
  app.post('/sandbox/vaults/:vaultId/outcome', {
    schema: {
      tags: ['Sandbox'],
      operationId: 'setSandboxVaultOutcome',
      description: 'Every later charge of this stored card answers with this return code (51, 46, ...), to play retries, blocked subscriptions and recoveries; null clears it.',
      summary: "Force the acquirer's answer for a stored card",
      security: security.admin,
      params: Type.Object({ vaultId: Type.String({ minLength: 1, maxLength: 36 }) }),
      body: Type.Object({ returnCode: Type.Union([Type.Union(CODES.map((c) => Type.Literal(c))), Type.Null()]) }, { examples: [EXAMPLES.setSandboxVaultOutcome] }),
      response: { 200: Type.Object({ vaultId: Type.String(), returnCode: Type.Union([Type.String(), Type.Null()]) }), ...errorResponses(400, 401, 404) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => {
      const { vaultId } = request.params;
      await ctx.cards.setSandboxOutcome(vaultId, request.body.returnCode);
      return { vaultId, returnCode: request.body.returnCode };
    },
  });
}
