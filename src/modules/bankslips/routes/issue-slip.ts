import type { BankSlipRouteDeps } from '../route-deps.js';
import { integrationAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import { requireOwnAccount } from '../../../http/ownership.js';
import type { App } from '../../../http/types.js';
import { AccountQuery, BankSlipDetail, IssueBody } from '../schemas.js';

/** POST {integration}/api/billissuer/issue?accountNumber= (extension, contract section 10). */
export function issueSlipRoute(app: App, ctx: BankSlipRouteDeps): void {
  app.post(`${ctx.config.integrationBasePath}/api/billissuer/issue`, {
    schema: {
      tags: ['Bank slips'],
      operationId: 'issueBankSlip',
      summary: 'Issue a bank slip',
      description:
        'Answers 201 with the detail record in status 1 (processing). Registration (barcode, digitable line, Pix code when asked) ' +
        'follows within a moment as a job: read it back with /api/billissuer/information. Accepts an Idempotency-Key header.',
      security: security.integration,
      querystring: AccountQuery,
      body: IssueBody,
      response: { 201: BankSlipDetail, ...errorResponses(400, 401, 403, 409) },
    },
    config: { idempotent: true },
    onRequest: integrationAuth(ctx),
    handler: async (request, reply) => {
      const principal = principalOf(request);
      const accountNumber = requireOwnAccount(principal, request.query.accountNumber);
      const detail = await ctx.bankSlips.issue({ merchantId: principal.merchantId, accountNumber }, request.body);
      return reply.code(201).send(detail);
    },
  });
}
