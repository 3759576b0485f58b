import { Type } from '@sinclair/typebox';
import type { MerchantRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { MerchantIdParams, Scope } from '../schemas.js';
import { EXAMPLES } from '../../../http/examples.js';

/**
 * POST /admin/merchants/{merchantId}/credentials: a userName and password for the APIs.
 * The password appears in this answer only; the service keeps just its scrypt hash.
 */
export function createCredentialRoute(app: App, ctx: MerchantRouteDeps): void {
  app.post('/admin/merchants/:merchantId/credentials', {
    schema: {
      tags: ['Merchants'],
      operationId: 'createCredential',
      summary: 'Issue API credentials for a merchant',
      description: 'Scopes: payments (payments, cards, vaults, payment links, Pix), recurrence (/v1/recurrences), integration (integration API). Accepts an Idempotency-Key header.',
      security: security.admin,
      params: MerchantIdParams,
      body: Type.Object({
        scopes: Type.Array(Scope, { minItems: 1, maxItems: 3 }),
        allowedIps: Type.Optional(Type.Array(Type.String({ maxLength: 49 }), { maxItems: 100, description: 'IP addresses or CIDR ranges; empty = any' })),
      }, { examples: [EXAMPLES.createCredential] }),
      response: {
        201: Type.Object({
          userName: Type.String(),
          password: Type.String(),
          merchantId: Type.String(),
          scopes: Type.Array(Type.String()),
          allowedIps: Type.Array(Type.String()),
        }),
        ...errorResponses(400, 401, 404, 409),
      },
    },
    config: { idempotent: true },
    onRequest: adminAuth(ctx),
    handler: async (request, reply) =>
      reply.code(201).send(await ctx.merchants.createCredential(request.params.merchantId, request.body)),
  });
}
