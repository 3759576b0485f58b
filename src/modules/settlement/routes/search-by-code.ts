import { Type } from '@sinclair/typebox';
import type { SettlementRouteDeps } from '../route-deps.js';
import { integrationAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { conciliationSearch } from '../search.js';
import { ByCodeQuery, InstallmentRecord } from '../schemas.js';

/** POST {integration}/api/transaction/concil/search-by-code: the installments of a sale by nsu, optionally narrowed by codAuth. */
export function searchByCodeRoute(app: App, ctx: SettlementRouteDeps): void {
  app.post(`${ctx.config.integrationBasePath}/api/transaction/concil/search-by-code`, {
    schema: {
      tags: ['Conciliation'],
      operationId: 'searchConciliationByCode',
      summary: 'Installments of one sale by its nsu (and codAuth)',
      description: 'Parameters in the query string, no body. Ordered by transactionDate, then installmentNumber; [] when nothing matches.',
      security: security.integration,
      querystring: ByCodeQuery,
      response: { 200: Type.Array(InstallmentRecord), ...errorResponses(400, 401, 403) },
    },
    onRequest: integrationAuth(ctx),
    handler: async (request) => conciliationSearch.byCode(ctx, principalOf(request), request.query),
  });
}
