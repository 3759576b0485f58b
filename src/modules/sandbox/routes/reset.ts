import { Type } from '@sinclair/typebox';
import type { SandboxRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { ResetAnswer } from '../schemas.js';

/**
 * POST /sandbox/reset: the clock back to real time and the business data gone, merchants and
 * credentials kept. POST /sandbox/merchants/{merchantId}/reset: one merchant's data, clock untouched.
 */
export function resetRoutes(app: App, ctx: SandboxRouteDeps): void {
  app.post('/sandbox/reset', {
    schema: {
      tags: ['Sandbox'],
      operationId: 'resetSandbox',
      summary: 'Reset the sandbox: clock back to real time, business data removed',
      description:
        'Removes every payment, stored card, plan, subscription, billing, payment link, bank slip, Pix charge, receivable, ' +
        'webhook notification, stored idempotent answer and job, and returns the virtual clock to real time. Merchants, ' +
        'credentials, pricing, anti-fraud settings, acquirer connections and webhook subscriptions stay.',
      security: security.admin,
      response: { 200: ResetAnswer, ...errorResponses(401) },
    },
    onRequest: adminAuth(ctx),
    handler: async () => ctx.sandboxReset!.resetAll(),
  });

  app.post('/sandbox/merchants/:merchantId/reset', {
    schema: {
      tags: ['Sandbox'],
      operationId: 'resetSandboxMerchant',
      summary: "Reset one merchant's sandbox data",
      description: "Removes one merchant's business data as POST /sandbox/reset does; the clock, shared by every merchant, does not move.",
      security: security.admin,
      params: Type.Object({ merchantId: Type.String({ minLength: 1, maxLength: 64, examples: ['mer_3f2a9c1d'] }) }),
      response: { 200: ResetAnswer, ...errorResponses(401, 404) },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => ctx.sandboxReset!.resetMerchant(request.params.merchantId),
  });
}
