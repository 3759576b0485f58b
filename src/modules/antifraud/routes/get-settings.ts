import type { AntifraudRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { MerchantIdParams } from '../../../http/merchant-id-params.js';
import { AntifraudSettings } from '../schemas.js';

/** GET /admin/merchants/{merchantId}/antifraud: the whole effective settings (defaults included). */
export function getSettingsRoute(app: App, ctx: AntifraudRouteDeps): void {
  app.get('/admin/merchants/:merchantId/antifraud', {
    schema: {
      tags: ['Anti-fraud'],
      operationId: 'getAntifraudSettings',
      description: "A merchant's anti-fraud thresholds: velocity limits per card, document and IP, amount limits and the countries accepted.",
      summary: "Get a merchant's anti-fraud thresholds",
      security: security.admin,
      params: MerchantIdParams,
      response: { 200: AntifraudSettings, ...errorResponses(400, 401, 404) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => {
      await ctx.merchants.get(request.params.merchantId);
      return ctx.antifraud.settings.get(request.params.merchantId);
    },
  });
}
