import type { BankSlipRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { RemittanceQuery } from '../schemas.js';

/**
 * GET /sandbox/bankslips/returns?date=YYYY-MM-DD (sandbox only, admin key): the CNAB 240 return
 * file the bank would send for that day: entries confirmed (02) for the slips registered that
 * day, liquidations (06) for the payments recorded that day. A past day's file is the same
 * whenever it is fetched (cnab/sandbox-return.ts).
 */
export function sandboxReturnsRoute(app: App, ctx: BankSlipRouteDeps): void {
  app.get('/sandbox/bankslips/returns', {
    schema: {
      tags: ['Sandbox'],
      operationId: 'sandboxGetBankSlipReturns',
      description:
        'The CNAB 240 return file (retorno) of one day, as the sandbox bank would send it: 02 for the slips registered that day, 06 for the payments ' +
        'recorded that day, 09 (reason 10) for the slips the merchant cancelled that day. A past day\'s file is the same each time it is fetched; today\'s grows until the day ends.',
      summary: 'The return file of a day (as the bank would send it)',
      security: security.admin,
      querystring: RemittanceQuery,
      response: {
        200: { description: 'CNAB 240 return file', content: { 'text/plain': { schema: { type: 'string' } } } },
        ...errorResponses(400, 401),
      },
    },
    onRequest: adminAuth(ctx),
    handler: async (request, reply) => {
      const { date } = request.query;
      return reply
        .type('text/plain; charset=us-ascii')
        .header('Content-Disposition', `attachment; filename="retorno-${date.replaceAll('-', '')}.ret"`)
        .send(await ctx.bankSlips.sandboxReturn(date));
    },
  });
}
