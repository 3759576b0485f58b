import type { DisputeRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { DisputeResult, RegisterDisputeBody } from '../schemas.js';

/** POST /admin/disputes: the operator registers a chargeback as the acquirer reports it. */
export function registerDisputeRoute(app: App, ctx: DisputeRouteDeps): void {
  app.post('/admin/disputes', {
    schema: {
      tags: ['Disputes'],
      operationId: 'registerDispute',
      summary: 'Register a chargeback (operator)',
      description:
        "A chargeback of an Authorized or Paid card payment, as the acquirer reports it: the brand's reason code, the amount (by default what is left " +
        'of the payment) and the deadline for evidence (by default 10 days). The dispute opens NeedsResponse, seen by the payment\'s merchant only; ' +
        'the payment\'s installments are blocked (B) until it is closed. 409 when the payment cannot be disputed or has an open dispute.',
      security: security.admin,
      body: RegisterDisputeBody,
      response: { 201: DisputeResult, ...errorResponses(400, 401, 404, 409) },
    },
    config: { idempotent: true },
    onRequest: adminAuth(ctx),
    handler: async (request, reply) => reply.code(201).send(await ctx.disputes.register({ ...request.body, source: 'operator' })),
  });
}
