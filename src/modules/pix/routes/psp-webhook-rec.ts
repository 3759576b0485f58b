import { Type } from '@sinclair/typebox';
import type { PixRouteDeps } from '../route-deps.js';
import { errorResponses } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { RecWebhookBody, recurrenceStateOf } from '../../../pix-provider/bcb/recurrence-protocol.js';
import { pspWebhookGuard } from './psp-webhook.js';

const Answer = Type.Object({
  applied: Type.Integer({ description: 'Recurrences whose status this call moved' }),
  unchanged: Type.Integer({ description: 'Recurrences unknown here or already in that status' }),
});

/**
 * PIX_PROVIDER=bcb: `POST {PIX_WEBHOOK_PATH}/rec`, where the API Pix delivers `/webhookrec`
 * notifications (`{recs: [...]}`): the payer authorized, refused or cancelled a Pix Automático
 * recurrence. Same address and secret checks as the payments' webhook; each applied once.
 */
export function pspRecurrenceWebhookRoute(app: App, ctx: PixRouteDeps): void {
  const guard = pspWebhookGuard(ctx);
  if (!guard) return;
  app.post(`${ctx.config.pix.webhookPath}/rec`, {
    schema: {
      tags: ['Pix'],
      operationId: 'receivePspPixRecurrences',
      summary: 'Pix Automático recurrences from the PSP (API Pix webhookrec)',
      description: 'Called by the Pix PSP, not by integrators: a recurrence authorized (the subscription becomes Active), refused, expired or cancelled (Canceled). Authenticated by PIX_WEBHOOK_ALLOWED_IPS and PIX_WEBHOOK_SECRET.',
      body: RecWebhookBody,
      response: { 200: Answer, ...errorResponses(400, 401, 403) },
    },
    onRequest: guard,
    handler: async (request) => {
      let applied = 0;
      for (const item of request.body.recs) {
        const state = recurrenceStateOf(item);
        if (state && (await ctx.pix.recurrences.reports.recurrence(state))) applied++;
      }
      return { applied, unchanged: request.body.recs.length - applied };
    },
  });
}
