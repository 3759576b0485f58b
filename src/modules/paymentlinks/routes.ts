import type { PaymentLinkRouteDeps } from './route-deps.js';
import type { App } from '../../http/types.js';
import { checkoutAssetRoutes } from './routes/checkout-assets.js';
import { checkoutAuthenticatedRoute, checkoutPageRoute } from './routes/checkout-page.js';
import { checkoutPayRoute } from './routes/checkout-pay.js';
import { createLinkRoute } from './routes/create-link.js';
import { deactivateLinkRoute } from './routes/deactivate-link.js';
import { getInformationRoute } from './routes/get-information.js';

export function registerPaymentLinkRoutes(app: App, ctx: PaymentLinkRouteDeps): void {
  createLinkRoute(app, ctx);
  getInformationRoute(app, ctx);
  deactivateLinkRoute(app, ctx);
  const assets = checkoutAssetRoutes(app);
  checkoutPageRoute(app, ctx, assets);
  checkoutAuthenticatedRoute(app, ctx);
  checkoutPayRoute(app, ctx);
}
