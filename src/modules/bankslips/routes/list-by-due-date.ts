import { Type } from '@sinclair/typebox';
import type { BankSlipRouteDeps } from '../route-deps.js';
import { integrationAuth, principalOf } from '../../../http/guards.js';
import { sendJsonArray } from '../../../http/json-stream.js';
import { errorResponses, security } from '../../../http/openapi.js';
import { requireOwnAccount } from '../../../http/ownership.js';
import type { App } from '../../../http/types.js';
import { BankSlipListRecord, DateRangeQuery } from '../schemas.js';

/** GET {integration}/api/billissuer/list/by/due-date: slips whose due date is in the range, bounds included. */
export function listByDueDateRoute(app: App, ctx: BankSlipRouteDeps): void {
  app.get(`${ctx.config.integrationBasePath}/api/billissuer/list/by/due-date`, {
    schema: {
      tags: ['Bank slips'],
      operationId: 'listBankSlipsByDueDate',
      description: 'Bank slips whose due date falls in the range. Streamed (a JSON array written while it is read); 429 with Retry-After when the merchant already runs CONCIL_MAX_CONCURRENT_PER_MERCHANT range searches or listings.',
      summary: 'Bank slips by due date',
      security: security.integration,
      querystring: DateRangeQuery,
      response: { 200: Type.Array(BankSlipListRecord), ...errorResponses(400, 401, 403, 429) },
    },
    onRequest: integrationAuth(ctx),
    handler: async (request, reply) => {
      const { accountNumber, startDate, endDate } = request.query;
      const principal = principalOf(request);
      const owner = { merchantId: principal.merchantId, accountNumber: requireOwnAccount(principal, accountNumber) };
      return sendJsonArray(reply, ctx.bankSlips.listByDueDate(owner, startDate, endDate));
    },
  });
}
