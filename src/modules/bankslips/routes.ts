import type { BankSlipRouteDeps } from './route-deps.js';
import type { App } from '../../http/types.js';
import { cancelSlipRoute } from './routes/cancel-slip.js';
import { importReturnsRoute } from './routes/import-returns.js';
import { informationRoute } from './routes/information.js';
import { issueSlipRoute } from './routes/issue-slip.js';
import { listByCreditDateRoute } from './routes/list-by-credit-date.js';
import { listByDueDateRoute } from './routes/list-by-due-date.js';
import { listByPaymentDateRoute } from './routes/list-by-payment-date.js';
import { remittanceRoute } from './routes/remittance.js';
import { sandboxPayRoute } from './routes/sandbox-pay.js';
import { sandboxReturnsRoute } from './routes/sandbox-returns.js';
import { slipPdfRoute } from './routes/slip-pdf.js';

export function registerBankSlipRoutes(app: App, ctx: BankSlipRouteDeps): void {
  issueSlipRoute(app, ctx);
  listByDueDateRoute(app, ctx);
  listByPaymentDateRoute(app, ctx);
  listByCreditDateRoute(app, ctx);
  informationRoute(app, ctx);
  slipPdfRoute(app, ctx);
  cancelSlipRoute(app, ctx);
  remittanceRoute(app, ctx);
  importReturnsRoute(app, ctx);
  // Sandbox mode only: in production every /sandbox path is 404.
  if (ctx.sandboxClock) {
    sandboxPayRoute(app, ctx);
    sandboxReturnsRoute(app, ctx);
  }
}
