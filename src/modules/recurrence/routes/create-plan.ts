import type { RecurrenceRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { IdString, PlanCreateBody, sendJsonString } from '../schemas.js';

/** POST {gateway}/v1/recurrences/plans: 201 with the plan id as a JSON string (seed "Plans"). */
export function createPlanRoute(app: App, ctx: RecurrenceRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/recurrences/plans`, {
    schema: {
      tags: ['Plans'],
      operationId: 'createPlan',
      summary: 'Create a plan',
      description:
        'Fixed types (Monthly 30, Bimonthly 60, Quarterly 90, Semesterly 180, Yearly 365 days, no end) refuse interval and installments; ' +
        'Custom requires interval >= 20 and installments >= 1. merchantId defaults to the token\'s. Accepts an Idempotency-Key header.',
      security: security.gateway,
      body: PlanCreateBody,
      response: { 201: IdString, ...errorResponses(400, 401, 403, 409) },
    },
    config: { idempotent: true },
    onRequest: gatewayAuth(ctx, 'recurrence'),
    handler: async (request, reply) => sendJsonString(reply, 201, await ctx.recurrence.plans.create(principalOf(request), request.body)),
  });
}
