import type { BankSlipRouteDeps } from '../route-deps.js';
import { integrationAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import { requireOwnAccount } from '../../../http/ownership.js';
import type { App } from '../../../http/types.js';
import { renderSlipPdf } from '../pdf.js';
import { AccountQuery, SlipIdParams } from '../schemas.js';

/**
 * GET {integration}/api/billissuer/{id}/pdf?accountNumber= (extension): the printable slip,
 * with the interleaved 2 of 5 barcode, the digitable line and the Pix QR code. 409 until the
 * slip is registered.
 */
export function slipPdfRoute(app: App, ctx: BankSlipRouteDeps): void {
  app.get(`${ctx.config.integrationBasePath}/api/billissuer/:id/pdf`, {
    schema: {
      tags: ['Bank slips'],
      operationId: 'getBankSlipPdf',
      description: 'The printable bank slip as a PDF, with its barcode and digitable line. 409 before registration and once cancelled.',
      summary: 'The printable bank slip (PDF)',
      security: security.integration,
      params: SlipIdParams,
      querystring: AccountQuery,
      response: {
        200: { description: 'The slip as a PDF', content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } },
        ...errorResponses(400, 401, 403, 404, 409),
      },
    },
    onRequest: integrationAuth(ctx),
    handler: async (request, reply) => {
      const principal = principalOf(request);
      requireOwnAccount(principal, request.query.accountNumber);
      const id = request.params.id.toLowerCase();
      const printable = await ctx.bankSlips.printable(principal.merchantId, id);
      const pdf = await renderSlipPdf(printable, ctx.clock.now());
      return reply.type('application/pdf').header('Content-Disposition', `inline; filename="boleto-${id}.pdf"`).send(pdf);
    },
  });
}
