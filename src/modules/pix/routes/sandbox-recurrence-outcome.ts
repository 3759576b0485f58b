import type { PixRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { PixRecurrence, PixRecurrenceOutcomeBody, PixRecurrenceParams } from '../schemas.js';
import { recurrenceView } from '../automatico/types.js';

/** POST /sandbox/pix/recurrences/{recurrenceId}/outcome: what the payer's account answers the next charges. */
export function sandboxRecurrenceOutcomeRoute(app: App, ctx: PixRouteDeps): void {
  app.post('/sandbox/pix/recurrences/:recurrenceId/outcome', {
    schema: {
      tags: ['Sandbox'],
      operationId: 'sandboxPixRecurrenceOutcome',
      summary: "Set what a Pix recurrence's next charges meet (sandbox)",
      description: 'paid (the default) or insufficient_funds: each due date and retry settles the cycle as it says, until changed.',
      security: security.admin,
      params: PixRecurrenceParams,
      body: PixRecurrenceOutcomeBody,
      response: { 200: PixRecurrence, ...errorResponses(400, 401, 404) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => {
      await ctx.pix.recurrences.find(request.params.recurrenceId);
      return recurrenceView(await ctx.pix.recurrences.sandbox.setOutcome(request.params.recurrenceId, request.body?.result ?? 'paid'));
    },
  });
}
