import type { SettlementRouteDeps } from '../route-deps.js';
import { ApiError } from '../../../http/errors.js';
import { integrationAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import { requireOwnAccount } from '../../../http/ownership.js';
import type { App } from '../../../http/types.js';
import { AccountQuery, PrepaymentBody, PrepaymentResult } from '../schemas.js';

/** POST {integration}/api/prepayments?accountNumber= (extension): one-off prepayment, type A. */
export function prepaymentsRoute(app: App, ctx: SettlementRouteDeps): void {
  app.post(`${ctx.config.integrationBasePath}/api/prepayments`, {
    schema: {
      tags: ['Prepayments'],
      operationId: 'createPrepayment',
      summary: 'Anticipate open installments to the next business day',
      description:
        'Body {items: [{nsu, installmentNumber}]} or {all: true}. Cost per installment: net x (monthlyRate / 30) x days anticipated. ' +
        'All or nothing: an unknown installment is 404, one that is not open, regular and due after the new date is 409.',
      security: security.integration,
      querystring: AccountQuery,
      body: PrepaymentBody,
      response: { 200: PrepaymentResult, ...errorResponses(400, 401, 403, 404, 409) },
    },
    config: { idempotent: true },
    onRequest: integrationAuth(ctx),
    handler: async (request) => {
      const principal = principalOf(request);
      const account = requireOwnAccount(principal, request.query.accountNumber);
      const { items, all } = request.body;
      if ((items === undefined) === (all !== true)) throw new ApiError(400, 'items', 'Send either items or all: true.');
      return ctx.settlement.prepay(principal.merchantId, account, items ? { items } : { all: true });
    },
  });
}
