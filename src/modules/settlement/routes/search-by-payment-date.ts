import { Type } from '@sinclair/typebox';
import type { SettlementRouteDeps } from '../route-deps.js';
import { integrationAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import { sendJsonArray } from '../../../http/json-stream.js';
import type { App } from '../../../http/types.js';
import { conciliationSearch } from '../search.js';
import { DateRangeQuery, InstallmentRecord } from '../schemas.js';

/** POST .../search-by-payment-date: installments whose receipt date (effective when received, else expected) is in the range. */
export function searchByPaymentDateRoute(app: App, ctx: SettlementRouteDeps): void {
  app.post(`${ctx.config.integrationBasePath}/api/transaction/concil/search-by-payment-date`, {
    schema: {
      tags: ['Conciliation'],
      operationId: 'searchConciliationByPaymentDate',
      summary: 'Installments received (or expected) in the date range',
      description: 'Parameters in the query string, no body. Ordered by transactionDate, then installmentNumber; [] when nothing matches. The range spans at most CONCIL_MAX_RANGE_DAYS days (default 90, the contract\'s) and is streamed; page and limit (max 10,000) answer one slice of it. 429 with Retry-After when the merchant already runs CONCIL_MAX_CONCURRENT_PER_MERCHANT range searches or bank slip listings.',
      security: security.integration,
      querystring: DateRangeQuery,
      response: { 200: Type.Array(InstallmentRecord), ...errorResponses(400, 401, 403, 429) },
    },
    onRequest: integrationAuth(ctx),
    // Streamed (src/http/json-stream.ts): the response schema documents the records; the bytes are written by conciliation-json.ts's serializers.
    handler: async (request, reply) => sendJsonArray(reply, conciliationSearch.byPaymentDate(ctx, principalOf(request), request.query)),
  });
}
