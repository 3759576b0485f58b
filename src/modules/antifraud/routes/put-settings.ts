import type { AntifraudRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { MerchantIdParams } from '../../../http/merchant-id-params.js';
import { AntifraudSettings, AntifraudSettingsPatch } from '../schemas.js';

/** PUT /admin/merchants/{merchantId}/antifraud: the whole object or any part of it (deep merge). */
export function putSettingsRoute(app: App, ctx: AntifraudRouteDeps): void {
  app.put('/admin/merchants/:merchantId/antifraud', {
    schema: {
      tags: ['Anti-fraud'],
      operationId: 'updateAntifraudSettings',
      summary: "Change a merchant's anti-fraud thresholds",
      description: 'Fields left out keep their value. Takes effect at once on this instance, within 5 s on the others.',
      security: security.admin,
      params: MerchantIdParams,
      body: AntifraudSettingsPatch,
      response: { 200: AntifraudSettings, ...errorResponses(400, 401, 404) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => {
      await ctx.merchants.get(request.params.merchantId);
      return ctx.antifraud.settings.put(request.params.merchantId, request.body);
    },
  });
}
