import { Type } from '@sinclair/typebox';
import type { MerchantRouteDeps } from '../route-deps.js';
import { EXAMPLES } from '../../../http/examples.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { Merchant, MerchantAddress, MerchantIdParams } from '../schemas.js';

/** PUT /admin/merchants/{merchantId}/address: set or replace the merchant's address. */
export function putAddressRoute(app: App, ctx: MerchantRouteDeps): void {
  app.put('/admin/merchants/:merchantId/address', {
    schema: {
      tags: ['Merchants'],
      operationId: 'setMerchantAddress',
      summary: "Set a merchant's address",
      description: "The whole address, replacing any earlier one: the receiver's address a payer's bank reads at the merchant's sandbox Pix charge locations (API Pix logradouro, cidade, uf, cep). Answers the merchant.",
      security: security.admin,
      params: MerchantIdParams,
      body: Type.Object(MerchantAddress.properties, { examples: [EXAMPLES.setMerchantAddress] }),
      response: { 200: Merchant, ...errorResponses(400, 401, 404) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => ctx.merchants.setAddress(request.params.merchantId, request.body),
  });
}
