import type { AntifraudRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { IpCountryRanges } from '../schemas.js';

/**
 * PUT /admin/antifraud/ip-countries: replaces the whole table that ip_country_mismatch reads
 * (no GeoIP database ships with the service). The most specific range containing an IP wins.
 */
export function putIpCountriesRoute(app: App, ctx: AntifraudRouteDeps): void {
  app.put('/admin/antifraud/ip-countries', {
    schema: {
      tags: ['Anti-fraud'],
      operationId: 'replaceIpCountries',
      summary: 'Replace the IP range -> country table',
      description: 'Ranges are answered in canonical form (host bits cleared). Takes effect at once on this instance, within 5 s on the others.',
      security: security.admin,
      body: IpCountryRanges,
      response: { 200: IpCountryRanges, ...errorResponses(400, 401) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => ctx.ipCountries.replace(request.body.ranges),
  });
}
