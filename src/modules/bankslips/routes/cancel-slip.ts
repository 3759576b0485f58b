import type { BankSlipRouteDeps } from '../route-deps.js';
import { integrationAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import { requireOwnAccount } from '../../../http/ownership.js';
import type { App } from '../../../http/types.js';
import { AccountQuery, BankSlipDetail, CancelBody, SlipIdParams } from '../schemas.js';

/**
 * POST {integration}/api/billissuer/{id}/cancel?accountNumber= (extension) with an optional
 * `{reason}`: an unpaid slip becomes cancelled (BankSlipService.cancel, cancel.ts); paid or
 * already cancelled, 409; another merchant's slip, 404.
 */
export function cancelSlipRoute(app: App, ctx: BankSlipRouteDeps): void {
  app.post(`${ctx.config.integrationBasePath}/api/billissuer/:id/cancel`, {
    schema: {
      tags: ['Bank slips'],
      operationId: 'cancelBankSlip',
      summary: 'Cancel a bank slip',
      description:
        'Cancels an unpaid slip (statusBill 1, 2 or 9): it is no longer payable, answers CancelDate and CancellationReason, ' +
        "and the day's remittance asks the bank to write it off (movement 02). A registered slip keeps its statusBill; one still " +
        'processing ends in 99. A paid or already cancelled slip is 409. The body is optional. Accepts an Idempotency-Key header.',
      security: security.integration,
      params: SlipIdParams,
      querystring: AccountQuery,
      body: CancelBody,
      response: { 200: BankSlipDetail, ...errorResponses(400, 401, 403, 404, 409) },
    },
    config: { idempotent: true },
    onRequest: integrationAuth(ctx),
    // No body at all is `{}`: the reason is optional, so the body is too.
    preValidation: async (request) => {
      request.body ??= {};
    },
    handler: async (request) => {
      const principal = principalOf(request);
      requireOwnAccount(principal, request.query.accountNumber);
      return ctx.bankSlips.cancel(principal.merchantId, request.params.id.toLowerCase(), request.body.reason);
    },
  });
}
