import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { integrationAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { conciliationSearch } from '../search.js';
import { DateRangeQuery, SummaryRecord } from './schemas.js';

/** POST .../search-by-operation-date: one summary record per sale whose date is in the range. */
export function searchByOperationDateRoute(app: App, ctx: AppContext): void {
  app.post(`${ctx.config.integrationBasePath}/api/transaction/concil/search-by-operation-date`, {
    schema: {
      tags: ['integration'],
      summary: 'One summary record per sale made in the date range',
      description: 'Parameters in the query string, no body. Ordered by transactionDate, then installmentNumber; [] when nothing matches.',
      security: security.integration,
      querystring: DateRangeQuery,
      response: { 200: Type.Array(SummaryRecord), ...errorResponses(400, 401, 403) },
    },
    onRequest: integrationAuth(ctx),
    handler: async (request) => conciliationSearch.byOperationDate(ctx, principalOf(request), request.query),
  });
}
