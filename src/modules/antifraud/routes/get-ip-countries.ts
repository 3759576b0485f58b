import type { AntifraudRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { IpCountryRanges } from '../schemas.js';

/** GET /admin/antifraud/ip-countries: the operator's IP range -> country table. */
export function getIpCountriesRoute(app: App, ctx: AntifraudRouteDeps): void {
  app.get('/admin/antifraud/ip-countries', {
    schema: {
      tags: ['Anti-fraud'],
      operationId: 'getIpCountries',
      description: 'The IP range to country table the anti-fraud country rule reads.',
      summary: 'Get the IP range -> country table',
      security: security.admin,
      response: { 200: IpCountryRanges, ...errorResponses(401) },
    },
    onRequest: adminAuth(ctx),
    handler: async () => ctx.ipCountries.get(),
  });
}
