import type { AppContext } from '../../root/context.js';
import type { App } from '../../http/types.js';
import { gatewayTokenRoute } from './routes/gateway-token.js';
import { integrationLoginRoute } from './routes/integration-login.js';
import { meRoutes } from './routes/me.js';

export function registerAuthRoutes(app: App, ctx: AppContext): void {
  gatewayTokenRoute(app, ctx);
  integrationLoginRoute(app, ctx);
  meRoutes(app, ctx);
}
