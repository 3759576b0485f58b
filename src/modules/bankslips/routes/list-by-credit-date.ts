import { Type } from '@sinclair/typebox';
import type { BankSlipRouteDeps } from '../route-deps.js';
import { integrationAuth, principalOf } from '../../../http/guards.js';
import { sendJsonArray } from '../../../http/json-stream.js';
import { errorResponses, security } from '../../../http/openapi.js';
import { requireOwnAccount } from '../../../http/ownership.js';
import type { App } from '../../../http/types.js';
import { BankSlipCreditRecord, CreditDateQuery } from '../schemas.js';

/**
 * GET {integration}/api/billissuer/list/by/credit-date: the PascalCase record, bounds a date or
 * an ISO datetime (its calendar date counts), optional statusIntegration filter.
 */
export function listByCreditDateRoute(app: App, ctx: BankSlipRouteDeps): void {
  app.get(`${ctx.config.integrationBasePath}/api/billissuer/list/by/credit-date`, {
    schema: {
      tags: ['Bank slips'],
      operationId: 'listBankSlipsByCreditDate',
      description: 'Bank slips whose credit date (money available to the merchant) falls in the range. Streamed (a JSON array written while it is read); 429 with Retry-After when the merchant already runs CONCIL_MAX_CONCURRENT_PER_MERCHANT range searches or listings.',
      summary: 'Bank slips by credit date',
      security: security.integration,
      querystring: CreditDateQuery,
      response: { 200: Type.Array(BankSlipCreditRecord), ...errorResponses(400, 401, 403, 429) },
    },
    onRequest: integrationAuth(ctx),
    handler: async (request, reply) => {
      const { accountNumber, startDate, endDate, statusIntegration } = request.query;
      const principal = principalOf(request);
      const owner = { merchantId: principal.merchantId, accountNumber: requireOwnAccount(principal, accountNumber) };
      return sendJsonArray(reply, ctx.bankSlips.listByCreditDate(owner, startDate, endDate, statusIntegration));
    },
  });
}
