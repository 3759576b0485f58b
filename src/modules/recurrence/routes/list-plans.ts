import { Type } from '@sinclair/typebox';
import type { RecurrenceRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { ListQuery, listEnvelope } from '../../../http/listing.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { Plan, PlanStatus } from '../schemas.js';

/** GET {gateway}/v1/recurrences/plans: list envelope; `name` matches a part of the name, any case. */
export function listPlansRoute(app: App, ctx: RecurrenceRouteDeps): void {
  app.get(`${ctx.config.gatewayBasePath}/v1/recurrences/plans`, {
    schema: {
      tags: ['Plans'],
      operationId: 'listPlans',
      summary: 'List plans',
      description: 'orderBy over id, merchantId, name, description, amount, planType, trialDays, paymentMethod, interval, installments, attempts, status, createdDate, createdBy.',
      security: security.gateway,
      querystring: Type.Composite([ListQuery, Type.Object({ name: Type.Optional(Type.String({ maxLength: 255 })), status: Type.Optional(PlanStatus) })]),
      response: { 200: listEnvelope(Plan), ...errorResponses(400, 401, 403) },
    },
    onRequest: gatewayAuth(ctx, 'recurrence'),
    handler: async (request) => ctx.recurrence.plans.list(principalOf(request), request.query),
  });
}
