import type { MerchantRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { Merchant, MerchantIdParams } from '../schemas.js';

/** GET /admin/merchants/{merchantId}. */
export function getMerchantRoute(app: App, ctx: MerchantRouteDeps): void {
  app.get('/admin/merchants/:merchantId', {
    schema: {
      tags: ['Merchants'],
      operationId: 'getMerchant',
      description: 'One merchant by its id: names, document, account number and status.',
      summary: 'Get a merchant',
      security: security.admin,
      params: MerchantIdParams,
      response: { 200: Merchant, ...errorResponses(400, 401, 404) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => ctx.merchants.get(request.params.merchantId),
  });
}
