import { Type } from '@sinclair/typebox';
import type { MerchantRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';

/** DELETE /admin/credentials/{userName}: tokens already issued to it stop working at once. */
export function revokeCredentialRoute(app: App, ctx: MerchantRouteDeps): void {
  app.delete('/admin/credentials/:userName', {
    schema: {
      tags: ['Merchants'],
      operationId: 'revokeCredential',
      description: 'Revokes a credential by its userName: it cannot log in again and the tokens it was issued stop working at once.',
      summary: 'Revoke a credential',
      security: security.admin,
      params: Type.Object({ userName: Type.String({ minLength: 1, maxLength: 30 }) }),
      response: { 200: Type.Object({ userName: Type.String(), revokedAt: Type.String() }), ...errorResponses(401, 404) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => ctx.merchants.revokeCredential(request.params.userName),
  });
}
