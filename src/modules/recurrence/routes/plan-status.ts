import { Type } from '@sinclair/typebox';
import type { RecurrenceRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { IdString, PlanIdParams, PlanStatus, sendJsonString } from '../schemas.js';
import { EXAMPLES } from '../../../http/examples.js';

/** POST {gateway}/v1/recurrences/plans/{planId}/status: any state to any state; Canceled cascades. */
export function planStatusRoute(app: App, ctx: RecurrenceRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/recurrences/plans/:planId/status`, {
    schema: {
      tags: ['Plans'],
      operationId: 'changePlanStatus',
      summary: 'Change the status of a plan',
      description: 'Inactive: no new subscriptions. Canceled: no new subscriptions, and its subscriptions are Canceled with their Opened billings.',
      security: security.gateway,
      params: PlanIdParams,
      body: Type.Object({ status: PlanStatus }, { examples: [EXAMPLES.changePlanStatus] }),
      response: { 200: IdString, ...errorResponses(400, 401, 403, 404) },
    },
    onRequest: gatewayAuth(ctx, 'recurrence'),
    handler: async (request, reply) =>
      sendJsonString(reply, 200, await ctx.recurrence.plans.setStatus(principalOf(request), request.params.planId, request.body.status)),
  });
}
