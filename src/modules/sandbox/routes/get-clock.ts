import { Type } from '@sinclair/typebox';
import type { SandboxRouteDeps } from '../route-deps.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';

/** GET /sandbox/clock: the virtual clock's business time. */
export function getClockRoute(app: App, ctx: SandboxRouteDeps): void {
  app.get('/sandbox/clock', {
    schema: {
      tags: ['Sandbox'],
      operationId: 'getSandboxClock',
      description: 'Business time of the sandbox: real time plus every advance since the last reset.',
      summary: 'Read the virtual clock',
      security: security.admin,
      response: { 200: Type.Object({ now: Type.String({ format: 'date-time' }) }), ...errorResponses(401) },
    },
    onRequest: adminAuth(ctx),
    handler: async () => ({ now: ctx.clock.now().toISOString() }),
  });
}
