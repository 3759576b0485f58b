import type { PixRouteDeps } from './route-deps.js';
import type { App } from '../../http/types.js';
import { createChargeRoute } from './routes/create-charge.js';
import { getChargeRoute } from './routes/get-charge.js';
import { sandboxPayRoute } from './routes/sandbox-pay.js';
import { sandboxPayDueRoute } from './routes/sandbox-pay-due.js';
import { locationRoutes } from './routes/location.js';
import { pspWebhookRoutes } from './routes/psp-webhook.js';
import { pspRecurrenceWebhookRoute } from './routes/psp-webhook-rec.js';
import { pspRecurringChargeWebhookRoute } from './routes/psp-webhook-cobr.js';
import { createRefundRoute } from './routes/create-refund.js';
import { listRefundsRoute } from './routes/list-refunds.js';
import { sandboxFailRefundRoute } from './routes/sandbox-fail-refund.js';
import { sandboxRecurrenceRoute } from './routes/sandbox-recurrence.js';
import { sandboxRecurrenceOutcomeRoute } from './routes/sandbox-recurrence-outcome.js';

/** Pix charges and their refunds on the gateway API, and the sandbox's "the payer paid" and "the return failed". */
export function registerPixRoutes(app: App, ctx: PixRouteDeps): void {
  createChargeRoute(app, ctx);
  getChargeRoute(app, ctx);
  createRefundRoute(app, ctx);
  listRefundsRoute(app, ctx);
  // Sandbox mode only: in production every /sandbox path is 404.
  if (ctx.sandboxClock) {
    sandboxPayRoute(app, ctx);
    sandboxPayDueRoute(app, ctx);
    sandboxFailRefundRoute(app, ctx);
    // The sandbox's payer of Pix Automático plays the sandbox PSP: with a PSP, its payer answers.
    if (ctx.config.pix.kind === 'sandbox') {
      for (const action of ['authorize', 'reject', 'cancel'] as const) sandboxRecurrenceRoute(app, ctx, action);
      sandboxRecurrenceOutcomeRoute(app, ctx);
    }
  }
  // The gateway plays the PSP (locations, keys) only when no PSP does.
  if (ctx.config.pix.kind === 'sandbox') locationRoutes(app, ctx);
  else {
    pspWebhookRoutes(app, ctx);
    pspRecurrenceWebhookRoute(app, ctx);
    pspRecurringChargeWebhookRoute(app, ctx);
  }
}
