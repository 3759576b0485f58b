import type { BankSlipRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { BankSlipDetail, SandboxPayBody, SlipIdParams } from '../schemas.js';

/**
 * POST /sandbox/bankslips/{id}/pay {paidAt?, value?} (sandbox only, admin key): the payer paid.
 * Late: penalty and pro-rata interest when the slip allows it; 409 when it does not or after
 * its dateLimit. Credit on the next business day after the payment date.
 */
export function sandboxPayRoute(app: App, ctx: BankSlipRouteDeps): void {
  app.post('/sandbox/bankslips/:id/pay', {
    schema: {
      tags: ['Sandbox'],
      operationId: 'sandboxPayBankSlip',
      summary: 'Pay a bank slip',
      description: 'The body may be omitted: paid now, the amount due now.',
      security: security.admin,
      params: SlipIdParams,
      body: SandboxPayBody,
      response: { 200: BankSlipDetail, ...errorResponses(400, 401, 404, 409) },
    },
    onRequest: adminAuth(ctx),
    // `curl -X POST .../pay` with no body means "paid now": validate it as {}.
    preValidation: async (request) => {
      request.body ??= {};
    },
    handler: async (request) => ctx.bankSlips.pay(request.params.id.toLowerCase(), request.body),
  });
}
