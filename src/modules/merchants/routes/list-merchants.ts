import type { MerchantRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { ListQuery, listEnvelope } from '../../../http/listing.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { Merchant } from '../schemas.js';

/** GET /admin/merchants: list envelope; orderBy over createdDate, name, accountNumber, merchantId. */
export function listMerchantsRoute(app: App, ctx: MerchantRouteDeps): void {
  app.get('/admin/merchants', {
    schema: {
      tags: ['Merchants'],
      operationId: 'listMerchants',
      description: 'Every merchant, a page at a time (page, limit, sort).',
      summary: 'List merchants',
      security: security.admin,
      querystring: ListQuery,
      response: { 200: listEnvelope(Merchant), ...errorResponses(400, 401) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => ctx.merchants.list(request.query),
  });
}
