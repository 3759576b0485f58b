import type { AppContext } from '../../context.js';
import type { App } from '../../http/types.js';
import { createChargeRoute } from './routes/create-charge.js';
import { getChargeRoute } from './routes/get-charge.js';
import { sandboxPayRoute } from './routes/sandbox-pay.js';
import { locationRoutes } from './routes/location.js';
import { pspWebhookRoutes } from './routes/psp-webhook.js';

/** Pix charges on the gateway API, and the sandbox's "the payer paid" (as bank slips do). */
export function registerPixRoutes(app: App, ctx: AppContext): void {
  createChargeRoute(app, ctx);
  getChargeRoute(app, ctx);
  // Sandbox mode only: in production every /sandbox path is 404.
  if (ctx.sandboxClock) sandboxPayRoute(app, ctx);
  // The gateway plays the PSP (locations, keys) only when no PSP does.
  if (ctx.config.pix.kind === 'sandbox') locationRoutes(app, ctx);
  else pspWebhookRoutes(app, ctx);
}
