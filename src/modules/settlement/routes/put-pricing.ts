import type { SettlementRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { MerchantIdParams } from '../../../http/merchant-id-params.js';
import { pricingToJson } from '../pricing.js';
import { Pricing, PricingPatch } from '../schemas.js';

/** PUT /admin/merchants/{merchantId}/pricing: the whole object or any part; applies to sales made from then on. */
export function putPricingRoute(app: App, ctx: SettlementRouteDeps): void {
  app.put('/admin/merchants/:merchantId/pricing', {
    schema: {
      tags: ['Pricing'],
      operationId: 'updatePricing',
      summary: "Change a merchant's pricing",
      description: 'Fields left out keep their value. Percents 0..100 with up to 4 decimals; fees in reais with up to 2 decimals.',
      security: security.admin,
      params: MerchantIdParams,
      body: PricingPatch,
      response: { 200: Pricing, ...errorResponses(400, 401, 404) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => {
      await ctx.merchants.get(request.params.merchantId);
      return pricingToJson(await ctx.settlement.pricing.put(request.params.merchantId, request.body));
    },
  });
}
