import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { integrationAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { conciliationSearch } from '../search.js';
import { DateRangeQuery, InstallmentRecord } from './schemas.js';

/** POST .../search-by-operation-date-installments: one record per installment of the sales in the range. */
export function searchByOperationDateInstallmentsRoute(app: App, ctx: AppContext): void {
  app.post(`${ctx.config.integrationBasePath}/api/transaction/concil/search-by-operation-date-installments`, {
    schema: {
      tags: ['integration'],
      summary: 'Every installment of the sales made in the date range',
      description: 'Parameters in the query string, no body. Ordered by transactionDate, then installmentNumber; [] when nothing matches.',
      security: security.integration,
      querystring: DateRangeQuery,
      response: { 200: Type.Array(InstallmentRecord), ...errorResponses(400, 401, 403) },
    },
    onRequest: integrationAuth(ctx),
    handler: async (request) => conciliationSearch.byOperationDateInstallments(ctx, principalOf(request), request.query),
  });
}
