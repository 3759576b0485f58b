import type { BankSlipRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { RemittanceQuery } from '../schemas.js';

/**
 * GET /admin/bankslips/remittance?date=YYYY-MM-DD (operator key): the CNAB 240 remittance file
 * (remessa) of the slips issued or cancelled that day, to upload to the bank. Written again on
 * every call, always the same for the same day's slips (its file number is the day's).
 */
export function remittanceRoute(app: App, ctx: BankSlipRouteDeps): void {
  app.get('/admin/bankslips/remittance', {
    schema: {
      tags: ['Bank slips'],
      operationId: 'getBankSlipRemittance',
      description: "The CNAB 240 remittance file (remessa) of one day's slips, as the bank expects it.",
      summary: 'The CNAB 240 remittance file of a day',
      security: security.admin,
      querystring: RemittanceQuery,
      response: {
        200: { description: 'CNAB 240 text, 240 characters a record, CRLF line ends', content: { 'text/plain': { schema: { type: 'string' } } } },
        ...errorResponses(400, 401),
      },
    },
    onRequest: adminAuth(ctx),
    handler: async (request, reply) => {
      const { date } = request.query;
      const file = await ctx.bankSlips.remittance(date);
      return reply
        .type('text/plain; charset=us-ascii')
        .header('Content-Disposition', `attachment; filename="remessa-${date.replaceAll('-', '')}.rem"`)
        .send(file);
    },
  });
}
