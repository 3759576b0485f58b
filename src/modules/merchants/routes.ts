import type { MerchantRouteDeps } from './route-deps.js';
import type { App } from '../../http/types.js';
import { cardSettingsRoutes } from './routes/card-settings.js';
import { createCredentialRoute } from './routes/create-credential.js';
import { createMerchantRoute } from './routes/create-merchant.js';
import { getMerchantRoute } from './routes/get-merchant.js';
import { listMerchantsRoute } from './routes/list-merchants.js';
import { putAddressRoute } from './routes/put-address.js';
import { revokeCredentialRoute } from './routes/revoke-credential.js';

export function registerAdminRoutes(app: App, ctx: MerchantRouteDeps): void {
  createMerchantRoute(app, ctx);
  listMerchantsRoute(app, ctx);
  getMerchantRoute(app, ctx);
  putAddressRoute(app, ctx);
  cardSettingsRoutes(app, ctx);
  createCredentialRoute(app, ctx);
  revokeCredentialRoute(app, ctx);
}
