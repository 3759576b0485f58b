import type { AcquirerRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../http/guards.js';
import { notFound } from '../../http/errors.js';
import { errorResponses, security } from '../../http/openapi.js';
import type { App } from '../../http/types.js';
import { MerchantIdParams } from '../../http/merchant-id-params.js';
import { AcquirerConnection } from '../schemas.js';

/** GET /admin/merchants/{merchantId}/acquirer: the merchant's own connection (404 when it uses the default). */
export function getAcquirerConnectionRoute(app: App, ctx: AcquirerRouteDeps): void {
  app.get('/admin/merchants/:merchantId/acquirer', {
    schema: {
      tags: ['Acquirer connections'],
      operationId: 'getAcquirerConnection',
      description: "A merchant's own acquirer connection (its Cielo MerchantId; the key is never shown), or 404 when it uses the gateway's default acquirer.",
      summary: "Get a merchant's own acquirer connection",
      security: security.admin,
      params: MerchantIdParams,
      response: { 200: AcquirerConnection, ...errorResponses(401, 404) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => {
      await ctx.merchants.get(request.params.merchantId);
      const view = await ctx.acquirerConnections.view(request.params.merchantId);
      if (!view) throw notFound('Acquirer connection (the merchant uses the default)');
      return view;
    },
  });
}
