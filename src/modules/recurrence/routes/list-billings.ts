import { Type } from '@sinclair/typebox';
import type { RecurrenceRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { ListQuery, listEnvelope } from '../../../http/listing.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { Billing, BillingStatus } from '../schemas.js';

/** GET {gateway}/v1/recurrences/billing: list envelope with each billing's subscription and plan. */
export function listBillingsRoute(app: App, ctx: RecurrenceRouteDeps): void {
  app.get(`${ctx.config.gatewayBasePath}/v1/recurrences/billing`, {
    schema: {
      tags: ['Billings'],
      operationId: 'listBillings',
      summary: 'List billings',
      description:
        'mid is the merchantId (another merchant\'s is 403). The expiration range bounds are dates (YYYY-MM-DD, whole days, inclusive) ' +
        'or ISO datetimes, on expireAt. orderBy over id, status, expireAt, amount, installment, createdDate, createdBy, modifiedDate, modifiedBy.',
      security: security.gateway,
      querystring: Type.Composite([
        ListQuery,
        Type.Object({
          mid: Type.Optional(Type.String({ maxLength: 100 })),
          status: Type.Optional(BillingStatus),
          expirationDateRangeStartDate: Type.Optional(Type.String({ maxLength: 40 })),
          expirationDateRangeEndDate: Type.Optional(Type.String({ maxLength: 40 })),
        }),
      ]),
      response: { 200: listEnvelope(Billing), ...errorResponses(400, 401, 403) },
    },
    onRequest: gatewayAuth(ctx, 'recurrence'),
    handler: async (request) => ctx.recurrence.billings.list(principalOf(request), request.query),
  });
}
