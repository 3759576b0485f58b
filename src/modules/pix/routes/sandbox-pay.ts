import type { PixRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { PixCharge, PixChargeParams } from '../schemas.js';

/** POST /sandbox/pix/{id}/pay: the payer pays a Pending charge -> Paid, with its D+0 receivable. */
export function sandboxPayRoute(app: App, ctx: PixRouteDeps): void {
  app.post('/sandbox/pix/:id/pay', {
    schema: {
      tags: ['Sandbox'],
      operationId: 'sandboxPayPixCharge',
      summary: 'Pay a Pix charge (sandbox)',
      description: 'Only a Pending, unexpired charge can be paid (409 otherwise).',
      security: security.admin,
      params: PixChargeParams,
      response: { 200: PixCharge, ...errorResponses(401, 404, 409) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => ctx.pix.pay(request.params.id),
  });
}
