import type { PixRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { PixDuePayment, PixLocationParams } from '../schemas.js';

/** POST /sandbox/pix/cobv/{txid}/pay: the payer pays a charge with a due date (or a bolecode's Pix) its day's amount. */
export function sandboxPayDueRoute(app: App, ctx: PixRouteDeps): void {
  app.post('/sandbox/pix/cobv/:txid/pay', {
    schema: {
      tags: ['Sandbox'],
      operationId: 'sandboxPayPixDueCharge',
      summary: 'Pay a Pix charge with a due date (sandbox)',
      description:
        "Pays the amount due on the sandbox's day (discount, fine and interest applied) as a PSP reports a received Pix. A bank slip's Pix code pays the slip. 409 when it is paid, cancelled or past its last day.",
      security: security.admin,
      params: PixLocationParams,
      response: { 200: PixDuePayment, ...errorResponses(401, 404, 409) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => ctx.pix.payDue(request.params.txid),
  });
}
