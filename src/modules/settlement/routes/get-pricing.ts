import type { SettlementRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { MerchantIdParams } from '../../../http/merchant-id-params.js';
import { pricingToJson } from '../pricing.js';
import { Pricing } from '../schemas.js';

/** GET /admin/merchants/{merchantId}/pricing: the whole pricing, defaults included. */
export function getPricingRoute(app: App, ctx: SettlementRouteDeps): void {
  app.get('/admin/merchants/:merchantId/pricing', {
    schema: {
      tags: ['Pricing'],
      operationId: 'getPricing',
      description: "A merchant's pricing: MDR per installment band (1x, 2-6x, 7-12x) and for Pix, fixed fees and the prepayment rate that conciliation and settlement apply.",
      summary: "Get a merchant's pricing (MDR, fees, prepayment)",
      security: security.admin,
      params: MerchantIdParams,
      response: { 200: Pricing, ...errorResponses(400, 401, 404) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => {
      await ctx.merchants.get(request.params.merchantId);
      return pricingToJson(await ctx.settlement.pricing.get(ctx.database.db, request.params.merchantId));
    },
  });
}
