import type { DisputeRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { DisputeResult, PixChargeIdParams, SandboxInfractionBody } from '../schemas.js';

/** POST /sandbox/pix/{id}/infraction: the payer's PSP opens a MED claim against a received Pix (sandbox). */
export function sandboxInfractionRoute(app: App, ctx: DisputeRouteDeps): void {
  app.post('/sandbox/pix/:id/infraction', {
    schema: {
      tags: ['Sandbox'],
      operationId: 'sandboxPixInfraction',
      summary: 'Open a MED claim against a Pix (sandbox)',
      description:
        'Plays a MED claim (dispute of type pix_med) as POST /admin/disputes with pixChargeId registers one: by default FR01 (fraud) and what is left of the Pix, 10 days to respond. ' +
        'Lost or accepted, the sandbox PSP makes the MED return itself at once and reports it as a PSP does.',
      security: security.admin,
      params: PixChargeIdParams,
      body: SandboxInfractionBody,
      response: { 201: DisputeResult, ...errorResponses(400, 401, 404, 409) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request, reply) =>
      reply.code(201).send(await ctx.disputes.register({ pixChargeId: request.params.id, reasonCode: request.body?.reasonCode ?? 'FR01', amount: request.body?.amount, source: 'sandbox' })),
  });
}
