import type { CardRouteDeps } from './route-deps.js';
import type { App } from '../../http/types.js';
import { createTokenRoute } from './routes/create-token.js';
import { createVaultRoute } from './routes/create-vault.js';
import { deleteVaultRoute } from './routes/delete-vault.js';
import { getVaultRoute } from './routes/get-vault.js';
import { publicKeyRoute } from './routes/public-key.js';
import { zeroAuthRoute } from './routes/zero-auth.js';

export function registerCardRoutes(app: App, ctx: CardRouteDeps): void {
  publicKeyRoute(app, ctx);
  createTokenRoute(app, ctx);
  createVaultRoute(app, ctx);
  getVaultRoute(app, ctx);
  deleteVaultRoute(app, ctx);
  zeroAuthRoute(app, ctx);
}
