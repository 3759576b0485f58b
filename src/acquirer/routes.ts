import type { AcquirerRouteDeps } from './route-deps.js';
import type { App } from '../http/types.js';
import { deleteAcquirerConnectionRoute } from './routes/delete-connection.js';
import { getAcquirerConnectionRoute } from './routes/get-connection.js';
import { putAcquirerConnectionRoute } from './routes/put-connection.js';

/** The operator's per-merchant acquirer connections. */
export function registerAcquirerRoutes(app: App, ctx: AcquirerRouteDeps): void {
  putAcquirerConnectionRoute(app, ctx);
  getAcquirerConnectionRoute(app, ctx);
  deleteAcquirerConnectionRoute(app, ctx);
}
