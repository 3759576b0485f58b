import type { AcquirerRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../http/guards.js';
import { errorResponses, security } from '../../http/openapi.js';
import type { App } from '../../http/types.js';
import { MerchantIdParams } from '../../http/merchant-id-params.js';
import { AcquirerConnection, AcquirerConnectionBody } from '../schemas.js';

/** PUT /admin/merchants/{merchantId}/acquirer: the merchant's own Cielo affiliation, used for its payments from now on. */
export function putAcquirerConnectionRoute(app: App, ctx: AcquirerRouteDeps): void {
  app.put('/admin/merchants/:merchantId/acquirer', {
    schema: {
      tags: ['Acquirer connections'],
      operationId: 'setAcquirerConnection',
      summary: "Set a merchant's own acquirer connection",
      description:
        'A merchant with its own Cielo affiliation: its payments, cancels and look-ups go to this connection instead of the default (ACQUIRER). The MerchantKey is stored encrypted under DATA_KEY and never shown again.',
      security: security.admin,
      params: MerchantIdParams,
      body: AcquirerConnectionBody,
      response: { 200: AcquirerConnection, ...errorResponses(400, 401, 404) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => {
      await ctx.merchants.get(request.params.merchantId);
      return ctx.acquirerConnections.put(request.params.merchantId, request.body);
    },
  });
}
