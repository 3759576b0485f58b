import type { AuthRouteDeps } from './route-deps.js';
import type { App } from '../../http/types.js';
import { gatewayTokenRoute } from './routes/gateway-token.js';
import { integrationLoginRoute } from './routes/integration-login.js';
import { meRoutes } from './routes/me.js';

export function registerAuthRoutes(app: App, ctx: AuthRouteDeps): void {
  gatewayTokenRoute(app, ctx);
  integrationLoginRoute(app, ctx);
  meRoutes(app, ctx);
}
