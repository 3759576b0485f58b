import type { RecurrenceRouteDeps } from './route-deps.js';
import type { App } from '../../http/types.js';
import { cancelBillingRoute } from './routes/cancel-billing.js';
import { createPlanRoute } from './routes/create-plan.js';
import { createSubscriptionRoute } from './routes/create-subscription.js';
import { getBillingRoute } from './routes/get-billing.js';
import { getPlanRoute } from './routes/get-plan.js';
import { getSubscriptionRoute } from './routes/get-subscription.js';
import { listBillingsRoute } from './routes/list-billings.js';
import { listPlansRoute } from './routes/list-plans.js';
import { listSubscriptionsRoute } from './routes/list-subscriptions.js';
import { planStatusRoute } from './routes/plan-status.js';
import { subscriptionStatusRoute } from './routes/subscription-status.js';
import { subscriptionVaultRoute } from './routes/subscription-vault.js';
import { updatePlanRoute } from './routes/update-plan.js';
import { cardUpdateLinkRoute } from './routes/card-update-link.js';
import { cardUpdatePageRoutes } from './routes/card-update-page.js';

/** {gateway}/v1/recurrences/*: the `recurrence` scope. */
export function registerRecurrenceRoutes(app: App, ctx: RecurrenceRouteDeps): void {
  createPlanRoute(app, ctx);
  listPlansRoute(app, ctx);
  getPlanRoute(app, ctx);
  updatePlanRoute(app, ctx);
  planStatusRoute(app, ctx);
  createSubscriptionRoute(app, ctx);
  listSubscriptionsRoute(app, ctx);
  getSubscriptionRoute(app, ctx);
  subscriptionStatusRoute(app, ctx);
  subscriptionVaultRoute(app, ctx);
  cardUpdateLinkRoute(app, ctx);
  cardUpdatePageRoutes(app, ctx);
  listBillingsRoute(app, ctx);
  getBillingRoute(app, ctx);
  cancelBillingRoute(app, ctx);
}
