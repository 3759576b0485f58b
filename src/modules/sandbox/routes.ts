import type { SandboxRouteDeps } from './route-deps.js';
import type { App } from '../../http/types.js';
import { advanceClockRoute } from './routes/advance-clock.js';
import { getClockRoute } from './routes/get-clock.js';
import { resetRoutes } from './routes/reset.js';
import { vaultOutcomeRoute } from './routes/vault-outcome.js';

/** Registered in sandbox mode only: in production every /sandbox path is 404. Modules register their own sandbox actions (pix, bankslips). */
export function registerSandboxRoutes(app: App, ctx: SandboxRouteDeps): void {
  getClockRoute(app, ctx);
  advanceClockRoute(app, ctx);
  resetRoutes(app, ctx);
  vaultOutcomeRoute(app, ctx);
}
