import type { RecurrenceRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { IdString, PlanIdParams, PlanUpdateBody, sendJsonString } from '../schemas.js';

/** POST {gateway}/v1/recurrences/plans/{planId}: update under the seed's rules (409 when refused). */
export function updatePlanRoute(app: App, ctx: RecurrenceRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/recurrences/plans/:planId`, {
    schema: {
      tags: ['Plans'],
      operationId: 'updatePlan',
      summary: 'Update a plan',
      description:
        'The amount of an Active plan cannot change (409); a plan with subscriptions changes only name and description (409). ' +
        'trialDays and attempts omitted keep their values.',
      security: security.gateway,
      params: PlanIdParams,
      body: PlanUpdateBody,
      response: { 200: IdString, ...errorResponses(400, 401, 403, 404, 409) },
    },
    onRequest: gatewayAuth(ctx, 'recurrence'),
    handler: async (request, reply) =>
      sendJsonString(reply, 200, await ctx.recurrence.plans.update(principalOf(request), request.params.planId, request.body)),
  });
}
