import type { AppContext } from '../../context.js';
import type { App } from '../../http/types.js';
import { createChargeRoute } from './routes/create-charge.js';
import { getChargeRoute } from './routes/get-charge.js';

/** Pix charges on the gateway API; the sandbox payment route is registered with the sandbox routes. */
export function registerPixRoutes(app: App, ctx: AppContext): void {
  createChargeRoute(app, ctx);
  getChargeRoute(app, ctx);
}
