import { Type } from '@sinclair/typebox';
import type { PixRouteDeps } from '../route-deps.js';
import { errorResponses } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { CobrWebhookBody, recurringChargeStateOf } from '../../../pix-provider/bcb/recurrence-protocol.js';
import { pspWebhookGuard } from './psp-webhook.js';

const Answer = Type.Object({
  applied: Type.Integer({ description: 'Settlements (paid or refused tentatives) this call recorded' }),
});

/**
 * PIX_PROVIDER=bcb: `POST {PIX_WEBHOOK_PATH}/cobr`, where the API Pix delivers `/webhookcobr`
 * notifications (`{cobsr: [...]}`): a cycle's charge paid, or a tentative refused. Same checks
 * as the payments' webhook; each tentative applied once.
 */
export function pspRecurringChargeWebhookRoute(app: App, ctx: PixRouteDeps): void {
  const guard = pspWebhookGuard(ctx);
  if (!guard) return;
  app.post(`${ctx.config.pix.webhookPath}/cobr`, {
    schema: {
      tags: ['Pix'],
      operationId: 'receivePspPixRecurringCharges',
      summary: 'Pix Automático cycle charges from the PSP (API Pix webhookcobr)',
      description: "Called by the Pix PSP, not by integrators: a cycle's charge (cobr) paid (its billing becomes Paid) or a tentative refused (the API Pix's retries, then Denied). Authenticated by PIX_WEBHOOK_ALLOWED_IPS and PIX_WEBHOOK_SECRET.",
      body: CobrWebhookBody,
      response: { 200: Answer, ...errorResponses(400, 401, 403) },
    },
    onRequest: guard,
    handler: async (request) => {
      let applied = 0;
      for (const item of request.body.cobsr) {
        const state = recurringChargeStateOf(item);
        if (state) applied += await ctx.pix.recurrences.reports.charge(state, 'webhook');
      }
      return { applied };
    },
  });
}
