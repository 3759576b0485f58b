import type { PaymentRouteDeps } from './route-deps.js';
import type { App } from '../../http/types.js';
import { cancelPaymentRoute } from './routes/cancel-payment.js';
import { createPaymentRoute } from './routes/create-payment.js';
import { createRefundRoute } from './routes/create-refund.js';
import { getPaymentRoute } from './routes/get-payment.js';
import { listRefundsRoute } from './routes/list-refunds.js';
import { reviewPaymentRoute } from './routes/review-payment.js';

export function registerPaymentRoutes(app: App, ctx: PaymentRouteDeps): void {
  createPaymentRoute(app, ctx);
  getPaymentRoute(app, ctx);
  cancelPaymentRoute(app, ctx);
  reviewPaymentRoute(app, ctx);
  createRefundRoute(app, ctx);
  listRefundsRoute(app, ctx);
}
