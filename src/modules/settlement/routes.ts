import type { SettlementRouteDeps } from './route-deps.js';
import type { App } from '../../http/types.js';
import { getPricingRoute } from './routes/get-pricing.js';
import { prepaymentsRoute } from './routes/prepayments.js';
import { putPricingRoute } from './routes/put-pricing.js';
import { searchByAuthCodeRoute } from './routes/search-by-auth-code.js';
import { searchByCodeRoute } from './routes/search-by-code.js';
import { searchByOperationDateInstallmentsRoute } from './routes/search-by-operation-date-installments.js';
import { searchByOperationDateRoute } from './routes/search-by-operation-date.js';
import { searchByPaymentDateRoute } from './routes/search-by-payment-date.js';

/** Pricing (operator), prepayment and the five conciliation searches (integration API). */
export function registerSettlementRoutes(app: App, ctx: SettlementRouteDeps): void {
  getPricingRoute(app, ctx);
  putPricingRoute(app, ctx);
  prepaymentsRoute(app, ctx);
  searchByCodeRoute(app, ctx);
  searchByAuthCodeRoute(app, ctx);
  searchByOperationDateRoute(app, ctx);
  searchByOperationDateInstallmentsRoute(app, ctx);
  searchByPaymentDateRoute(app, ctx);
}
