import type { PixRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { recurrenceView } from '../automatico/types.js';
import { PixRecurrence, PixRecurrenceParams } from '../schemas.js';

type Action = 'authorize' | 'reject' | 'cancel';
const SUMMARY: Record<Action, [string, string]> = {
  authorize: ['The payer authorizes a Pix recurrence (sandbox)', 'CRIADA and its code unexpired -> APROVADA: the journey-3 charge is paid (billing 1 Paid) and the subscription becomes Active. 409 otherwise.'],
  reject: ['The payer refuses a Pix recurrence (sandbox)', 'CRIADA -> REJEITADA: the subscription becomes Canceled with the reason. 409 otherwise.'],
  cancel: ['The payer cancels a Pix recurrence (sandbox)', 'CRIADA or APROVADA -> CANCELADA, as the payer does in their bank app: the subscription and its open billing become Canceled, no further charge is sent. 409 otherwise.'],
};

/** POST /sandbox/pix/recurrences/{recurrenceId}/{authorize|reject|cancel}: the payer's answers in their bank app. */
export function sandboxRecurrenceRoute(app: App, ctx: PixRouteDeps, action: Action): void {
  const [summary, description] = SUMMARY[action];
  app.post(`/sandbox/pix/recurrences/:recurrenceId/${action}`, {
    schema: {
      tags: ['Sandbox'],
      operationId: `sandbox${action[0].toUpperCase()}${action.slice(1)}PixRecurrence`,
      summary,
      description,
      security: security.admin,
      params: PixRecurrenceParams,
      response: { 200: PixRecurrence, ...errorResponses(401, 404, 409) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => {
      const { recurrenceId } = request.params;
      await ctx.pix.recurrences.find(recurrenceId);
      const psp = ctx.pix.recurrences.sandbox;
      const row = action === 'authorize' ? await psp.authorize(recurrenceId) : action === 'reject' ? await psp.reject(recurrenceId) : await psp.cancel(recurrenceId);
      return recurrenceView(row);
    },
  });
}
