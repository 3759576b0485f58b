import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import type { DashboardDeps } from '../http.js';
import { operatorJobsRoutes } from './operator-jobs.js';
import { operatorMerchantSettingsRoutes } from './operator-merchant-settings.js';
import { operatorMerchantRoutes } from './operator-merchant.js';
import { operatorMerchantsRoutes } from './operator-merchants.js';
import { operatorReviewRoutes } from './operator-review.js';
import { operatorSandboxRoutes } from './operator-sandbox.js';

/** The operator's pages (ADMIN_API_KEY session): one entry in the dashboard's PAGES list. */
export function operatorRoutes(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  for (const register of [operatorMerchantsRoutes, operatorMerchantRoutes, operatorMerchantSettingsRoutes, operatorReviewRoutes, operatorJobsRoutes, operatorSandboxRoutes]) {
    register(scope, ctx, deps);
  }
}
