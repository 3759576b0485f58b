import { Type } from '@sinclair/typebox';
import type { SandboxRouteDeps } from '../route-deps.js';
import { ApiError } from '../../../http/errors.js';
import { adminAuth } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { EXAMPLES } from '../../../http/examples.js';

const MINUTE_MS = 60_000;
const MAX_STEP_MS = 3660 * 24 * 60 * MINUTE_MS; // ten years and change per call

/**
 * POST /sandbox/clock/advance {days?, hours?, minutes?} or {to}: moves business time forward and
 * answers only after every job due up to the new time has run, in time order (section 12).
 */
export function advanceClockRoute(app: App, ctx: SandboxRouteDeps): void {
  app.post('/sandbox/clock/advance', {
    schema: {
      tags: ['Sandbox'],
      operationId: 'advanceSandboxClock',
      description: 'Moves business time forward by {days, hours, minutes} or to {to} and answers after every job due by then (charges, retries, expiries, settlement, deliveries) has run, in time order. Time never moves back except through POST /sandbox/reset.',
      summary: 'Advance the virtual clock and run the work that falls due',
      security: security.admin,
      body: Type.Object({
        days: Type.Optional(Type.Integer({ minimum: 0, maximum: 3660 })),
        hours: Type.Optional(Type.Integer({ minimum: 0, maximum: 87840 })),
        minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 5270400 })),
        to: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601 target; must not be in the past' })),
      }, { examples: [EXAMPLES.advanceSandboxClock] }),
      response: {
        200: Type.Object({ now: Type.String({ format: 'date-time' }), jobsRun: Type.Integer() }),
        ...errorResponses(400, 401),
      },
    },
    onRequest: adminAuth(ctx),
    handler: async (request) => {
      const { days, hours, minutes, to } = request.body;
      const relative = days !== undefined || hours !== undefined || minutes !== undefined;
      if (relative === (to !== undefined)) {
        throw new ApiError(400, 'body', 'Send either {days, hours, minutes} or {to}, not both and not neither.');
      }
      let result;
      if (to !== undefined) {
        const now = ctx.clock.now();
        const target = new Date(to);
        if (target.getTime() < now.getTime()) {
          throw new ApiError(400, 'to', `The clock never moves back: "to" must not be before ${now.toISOString()}.`);
        }
        if (target.getTime() - now.getTime() > MAX_STEP_MS) throw new ApiError(400, 'body', 'One advance moves at most 3660 days.');
        result = await ctx.sandboxClock!.advance(target);
      } else {
        const step = (((days ?? 0) * 24 + (hours ?? 0)) * 60 + (minutes ?? 0)) * MINUTE_MS;
        if (step > MAX_STEP_MS) throw new ApiError(400, 'body', 'One advance moves at most 3660 days.');
        // The target is computed under the clock's lock (advanceBy), so two concurrent "+1 day"
        // calls move the clock two days, not one.
        result = await ctx.sandboxClock!.advanceBy({ days, hours, minutes });
      }
      return { now: result.now.toISOString(), jobsRun: result.jobsRun };
    },
  });
}
