import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { integrationAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { conciliationSearch } from '../search.js';
import { DateRangeQuery, InstallmentRecord } from './schemas.js';

/** POST .../search-by-payment-date: installments whose receipt date (effective when received, else expected) is in the range. */
export function searchByPaymentDateRoute(app: App, ctx: AppContext): void {
  app.post(`${ctx.config.integrationBasePath}/api/transaction/concil/search-by-payment-date`, {
    schema: {
      tags: ['integration'],
      summary: 'Installments received (or expected) in the date range',
      description: 'Parameters in the query string, no body. Ordered by transactionDate, then installmentNumber; [] when nothing matches.',
      security: security.integration,
      querystring: DateRangeQuery,
      response: { 200: Type.Array(InstallmentRecord), ...errorResponses(400, 401, 403) },
    },
    onRequest: integrationAuth(ctx),
    handler: async (request) => conciliationSearch.byPaymentDate(ctx, principalOf(request), request.query),
  });
}
