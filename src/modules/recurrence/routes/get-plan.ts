import type { RecurrenceRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { Plan, PlanIdParams } from '../schemas.js';

/** GET {gateway}/v1/recurrences/plans/{planId}: another merchant's plan is 404. */
export function getPlanRoute(app: App, ctx: RecurrenceRouteDeps): void {
  app.get(`${ctx.config.gatewayBasePath}/v1/recurrences/plans/:planId`, {
    schema: {
      tags: ['Plans'],
      operationId: 'getPlan',
      description: 'A plan by its planId: name, amount, interval, attempts and status.',
      summary: 'Get a plan',
      security: security.gateway,
      params: PlanIdParams,
      response: { 200: Plan, ...errorResponses(400, 401, 403, 404) },
    },
    onRequest: gatewayAuth(ctx, 'recurrence'),
    handler: async (request) => ctx.recurrence.plans.get(principalOf(request), request.params.planId),
  });
}
