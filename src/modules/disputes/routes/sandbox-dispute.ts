import type { DisputeRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { DisputeResult, PaymentIdParams, SandboxDisputeBody } from '../schemas.js';

/** POST /sandbox/payments/{paymentId}/dispute: the cardholder disputes the payment (sandbox). */
export function sandboxDisputeRoute(app: App, ctx: DisputeRouteDeps): void {
  app.post('/sandbox/payments/:paymentId/dispute', {
    schema: {
      tags: ['Sandbox'],
      operationId: 'sandboxDisputePayment',
      summary: 'Dispute a payment (sandbox)',
      description: "Plays a chargeback of the whole payment with the brand's reason code, as POST /admin/disputes registers one (10 days to respond).",
      security: security.admin,
      params: PaymentIdParams,
      body: SandboxDisputeBody,
      response: { 201: DisputeResult, ...errorResponses(400, 401, 404, 409) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request, reply) => reply.code(201).send(await ctx.disputes.register({ paymentId: request.params.paymentId, reasonCode: request.body.reasonCode, source: 'sandbox' })),
  });
}
