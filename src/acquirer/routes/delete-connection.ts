import { Type } from '@sinclair/typebox';
import type { AcquirerRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../http/guards.js';
import { notFound } from '../../http/errors.js';
import { errorResponses, security } from '../../http/openapi.js';
import type { App } from '../../http/types.js';
import { MerchantIdParams } from '../../http/merchant-id-params.js';

/** DELETE /admin/merchants/{merchantId}/acquirer: back to the default connection (ACQUIRER). */
export function deleteAcquirerConnectionRoute(app: App, ctx: AcquirerRouteDeps): void {
  app.delete('/admin/merchants/:merchantId/acquirer', {
    schema: {
      tags: ['Acquirer connections'],
      operationId: 'deleteAcquirerConnection',
      summary: "Remove a merchant's own acquirer connection",
      description: "Its next payments go to the default acquirer. Payments made through the removed connection are cancelled through the default Cielo connection, when there is one.",
      security: security.admin,
      params: MerchantIdParams,
      response: { 200: Type.Object({ removed: Type.Literal(true) }), ...errorResponses(401, 404) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => {
      await ctx.merchants.get(request.params.merchantId);
      if (!(await ctx.acquirerConnections.remove(request.params.merchantId))) throw notFound('Acquirer connection');
      return { removed: true as const };
    },
  });
}
