import { Type } from '@sinclair/typebox';
import type { SettlementRouteDeps } from '../route-deps.js';
import { integrationAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { conciliationSearch } from '../search.js';
import { ByAuthCodeQuery, InstallmentRecord } from '../schemas.js';

/** POST .../search-by-auth-code: codAuth and operationDate required; value (sum of the installments), installmentValue and installmentNumber narrow it. */
export function searchByAuthCodeRoute(app: App, ctx: SettlementRouteDeps): void {
  app.post(`${ctx.config.integrationBasePath}/api/transaction/concil/search-by-auth-code`, {
    schema: {
      tags: ['Conciliation'],
      operationId: 'searchConciliationByAuthCode',
      summary: 'Installments by authorization code and sale date',
      description: 'Parameters in the query string, no body. Ordered by transactionDate, then installmentNumber; [] when nothing matches.',
      security: security.integration,
      querystring: ByAuthCodeQuery,
      response: { 200: Type.Array(InstallmentRecord), ...errorResponses(400, 401, 403) },
    },
    onRequest: integrationAuth(ctx),
    handler: async (request) => conciliationSearch.byAuthCode(ctx, principalOf(request), request.query),
  });
}
