import type { AntifraudRouteDeps } from './route-deps.js';
import type { App } from '../../http/types.js';
import { addBlocklistEntryRoute } from './routes/add-blocklist-entry.js';
import { deleteBlocklistEntryRoute } from './routes/delete-blocklist-entry.js';
import { getIpCountriesRoute } from './routes/get-ip-countries.js';
import { getSettingsRoute } from './routes/get-settings.js';
import { listBlocklistRoute } from './routes/list-blocklist.js';
import { putIpCountriesRoute } from './routes/put-ip-countries.js';
import { putSettingsRoute } from './routes/put-settings.js';

/** Operator routes of the anti-fraud engine (admin key). */
export function registerAntifraudRoutes(app: App, ctx: AntifraudRouteDeps): void {
  getSettingsRoute(app, ctx);
  putSettingsRoute(app, ctx);
  addBlocklistEntryRoute(app, ctx);
  listBlocklistRoute(app, ctx);
  deleteBlocklistEntryRoute(app, ctx);
  getIpCountriesRoute(app, ctx);
  putIpCountriesRoute(app, ctx);
}
