import type { WebhookRouteDeps } from './route-deps.js';
import type { App } from '../../http/types.js';
import { deleteSubscriptionRoute } from './routes/delete-subscription.js';
import { getSubscriptionRoute } from './routes/get-subscription.js';
import { listDeliveriesRoute } from './routes/list-deliveries.js';
import { redeliverRoute } from './routes/redeliver.js';
import { subscribeRoute } from './routes/subscribe.js';

export function registerWebhookRoutes(app: App, ctx: WebhookRouteDeps): void {
  subscribeRoute(app, ctx);
  getSubscriptionRoute(app, ctx);
  deleteSubscriptionRoute(app, ctx);
  listDeliveriesRoute(app, ctx);
  redeliverRoute(app, ctx);
}
