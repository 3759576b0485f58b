import type { BankSlipRouteDeps } from '../route-deps.js';
import { ApiError } from '../../../http/errors.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { decodeBankText } from '../cnab/text.js';
import { ImportSummary } from '../schemas.js';

/** A day of a large collection portfolio: 2 records of 242 bytes per slip, 100k slips ~ 48 MB. */
const RETURN_FILE_LIMIT = 64 * 1024 * 1024;

/**
 * POST /admin/bankslips/returns (operator key), body: the bank's CNAB 240 return file as
 * text/plain (or application/octet-stream). 200 with the summary when the file was applied;
 * 400 with the same summary, counts 0, when it is malformed (nothing applied).
 */
export function importReturnsRoute(app: App, ctx: BankSlipRouteDeps): void {
  // The app parses JSON only; this scope alone also reads the file as text.
  app.register(async (scope: App) => {
    scope.addContentTypeParser(['text/plain', 'application/octet-stream'], { parseAs: 'buffer', bodyLimit: RETURN_FILE_LIMIT }, (_request, body, done) =>
      done(null, decodeBankText(body as Buffer)),
    );
    scope.post('/admin/bankslips/returns', {
      bodyLimit: RETURN_FILE_LIMIT,
      schema: {
        tags: ['Bank slips'],
        operationId: 'applyBankSlipReturns',
        summary: 'Apply a CNAB 240 return file',
        description: 'Body: the return file (retorno) as text/plain. Idempotent: a file applied again answers every record unchanged.',
        security: security.admin,
        response: { 200: ImportSummary, 400: ImportSummary, ...errorResponses(401, 415) },
      },
      onRequest: adminAuth(ctx),
      handler: async (request, reply) => {
        // JSON is still parsed in this scope: a JSON body is not a return file.
        if (typeof request.body !== 'string') throw new ApiError(415, 'content-type', 'Send the return file itself as the body, with Content-Type text/plain or application/octet-stream.');
        const { ok, summary } = await ctx.bankSlips.importReturn(request.body);
        return reply.code(ok ? 200 : 400).send(summary);
      },
    });
  });
}
