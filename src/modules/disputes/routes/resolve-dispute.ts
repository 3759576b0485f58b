import type { DisputeRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { DisputeIdParams, DisputeResult, ResolveDisputeBody } from '../schemas.js';

/** POST /admin/disputes/{disputeId}/resolve: the operator records the card network's decision. */
export function resolveDisputeRoute(app: App, ctx: DisputeRouteDeps): void {
  app.post('/admin/disputes/:disputeId/resolve', {
    schema: {
      tags: ['Disputes'],
      operationId: 'resolveDispute',
      summary: "Record a dispute's outcome (operator)",
      description:
        "won: the payment's installments are approved (A) again. lost: the disputed amount is taken back from the merchant's receivables " +
        '(and its split beneficiaries, in proportion); taking what was left of the payment, it is Canceled and its installments C. ' +
        "A MED claim (pix_med) lost is marked Lost and nothing is sent: the PSP makes the MED return itself; the amount stays held (installment B) " +
        'until that return arrives (webhook or reconciliation), which closes the claim with its refundId (closedAt null until then). 409 when decided already.',
      security: security.admin,
      params: DisputeIdParams,
      body: ResolveDisputeBody,
      response: { 200: DisputeResult, ...errorResponses(400, 401, 404, 409) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => ctx.disputes.resolve(request.params.disputeId, request.body.outcome),
  });
}
