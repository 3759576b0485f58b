import type { PixRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { PixRefund, PixRefundParams } from '../schemas.js';

/** POST /sandbox/pix/refunds/{refundId}/fail: the sandbox PSP reports the return not made (NAO_REALIZADO). */
export function sandboxFailRefundRoute(app: App, ctx: PixRouteDeps): void {
  app.post('/sandbox/pix/refunds/:refundId/fail', {
    schema: {
      tags: ['Sandbox'],
      operationId: 'sandboxFailPixRefund',
      summary: 'Fail a Pix refund (sandbox)',
      description: 'The refund becomes NotDone and pix.refund_failed is sent; one already Returned is undone (refundedAmount and the receivable given back). 409 when it is NotDone already, or with a real PSP.',
      security: security.admin,
      params: PixRefundParams,
      response: { 200: PixRefund, ...errorResponses(401, 404, 409) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => ctx.pix.refunds.sandboxFail(request.params.refundId),
  });
}
