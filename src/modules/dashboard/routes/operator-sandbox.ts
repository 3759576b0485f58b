import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import { ApiError, notFound } from '../../../http/errors.js';
import { MerchantIdParams } from '../../../http/params.js';
import { seeOther, sendPage, type DashboardDeps } from '../http.js';
import { sandboxPage, type SandboxDone } from '../pages/operator-sandbox.js';
import { duration } from '../pages/operator-jobs.js';
import { FieldErrors, bodyCheck, operatorPage } from './operator-forms.js';
import { TRIGGER_EVENTS, runTrigger } from './operator-triggers.js';

const MINUTE_MS = 60_000;
/** POST /sandbox/clock/advance's limit: ten years and change per call. */
const MAX_STEP_MS = 3660 * 24 * 60 * MINUTE_MS;
/** POST /sandbox/clock/advance's bounds (its route keeps the schema inline). */
const checkAdvance = bodyCheck(
  Type.Object({
    days: Type.Optional(Type.Integer({ minimum: 0, maximum: 3660 })),
    hours: Type.Optional(Type.Integer({ minimum: 0, maximum: 87840 })),
    minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 5270400 })),
  }),
);
const text = Type.Optional(Type.String({ maxLength: 100 }));
// Optional here: the scope's preHandler checks it (validation runs first and must not answer 400 for a missing token).
const csrf = Type.Optional(Type.String({ maxLength: 200 }));
const SandboxQuery = Type.Object({
  done: Type.Optional(Type.Union(['advanced', 'reset', 'merchantReset', 'triggered'].map((d) => Type.Literal(d)))),
  now: text, jobs: text, removed: text, event: text, detail: Type.Optional(Type.String({ maxLength: 500 })),
});
const sum = (removed: Record<string, number>) => String(Object.values(removed).reduce((a, b) => a + b, 0));

/**
 * /dashboard/operator/sandbox: the virtual clock (advance; back to real time through the
 * reset, as the API), the resets and the event triggers. The sandbox's services exist in
 * sandbox mode only; in production the page and its forms are 404, like /sandbox.
 */
export function operatorSandboxRoutes(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  const sandbox = (request: FastifyRequest) => {
    operatorPage(request, deps);
    if (!ctx.sandboxClock || !ctx.sandboxReset) throw notFound('Page');
    return { clock: ctx.sandboxClock, reset: ctx.sandboxReset };
  };
  const back = (done: SandboxDone, values: Record<string, string>) => `/dashboard/operator/sandbox?${new URLSearchParams({ done, ...values })}`;

  scope.get('/operator/sandbox', { schema: { hide: true, querystring: SandboxQuery } }, async (request, reply) => {
    sandbox(request);
    const page = operatorPage(request, deps);
    const q = request.query as Record<string, string | undefined>;
    const now = ctx.clock.now();
    const real = ctx.clock.wallNow();
    const merchants = (await ctx.merchants.list({ page: 1, limit: 100, orderBy: 'name:asc' })).items;
    const { done: kind, ...values } = q;
    return sendPage(reply, 200, sandboxPage(page, {
      now: now.toISOString(),
      realNow: real.toISOString(),
      aheadText: duration(Math.round((now.getTime() - real.getTime()) / 1000)),
      merchants,
      events: TRIGGER_EVENTS,
      done: kind ? { kind: kind as SandboxDone, values: Object.fromEntries(Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined)) } : undefined,
    }));
  });

  // POST /sandbox/clock/advance {days, hours, minutes}: the same bounds, the same service call.
  scope.post('/operator/sandbox/clock', { schema: { hide: true, body: Type.Object({ _csrf: csrf, days: text, hours: text, minutes: text }) } }, async (request, reply) => {
    const { clock } = sandbox(request);
    const f = request.body as Record<string, string | undefined>;
    const e = new FieldErrors();
    const step = { days: e.integer(f.days, 'days'), hours: e.integer(f.hours, 'hours'), minutes: e.integer(f.minutes, 'minutes') };
    e.check();
    const body = Object.fromEntries(Object.entries(step).filter(([, v]) => v !== undefined));
    checkAdvance(body);
    if (Object.keys(body).length === 0) throw new ApiError(400, 'body', 'Send either {days, hours, minutes} or {to}, not both and not neither.');
    if ((((step.days ?? 0) * 24 + (step.hours ?? 0)) * 60 + (step.minutes ?? 0)) * MINUTE_MS > MAX_STEP_MS) throw new ApiError(400, 'body', 'One advance moves at most 3660 days.');
    const result = await clock.advanceBy(body);
    return seeOther(reply, back('advanced', { now: result.now.toISOString(), jobs: String(result.jobsRun) }));
  });

  // POST /sandbox/reset: every merchant's business data, and the clock back to real time.
  scope.post('/operator/sandbox/reset', { schema: { hide: true, body: Type.Object({ _csrf: csrf }) } }, async (request, reply) => {
    const { reset } = sandbox(request);
    const result = await reset.resetAll();
    return seeOther(reply, back('reset', { removed: sum(result.removed), now: result.now }));
  });

  // POST /sandbox/merchants/{id}/reset: one merchant's data; the clock stays.
  scope.post('/operator/sandbox/reset-merchant', { schema: { hide: true, body: Type.Object({ _csrf: csrf, ...MerchantIdParams.properties }) } }, async (request, reply) => {
    const { reset } = sandbox(request);
    const result = await reset.resetMerchant((request.body as { merchantId: string }).merchantId);
    return seeOther(reply, back('merchantReset', { removed: sum(result.removed) }));
  });

  // `gateway trigger EVENT`, through the services its API calls reach.
  scope.post(
    '/operator/sandbox/trigger',
    { schema: { hide: true, body: Type.Object({ _csrf: csrf, ...MerchantIdParams.properties, event: Type.Union(TRIGGER_EVENTS.map((e) => Type.Literal(e))) }) } },
    async (request, reply) => {
      sandbox(request);
      const { merchantId, event } = request.body as { merchantId: string; event: string };
      const result = await runTrigger(ctx, merchantId, event);
      const detail = Object.entries(result).map(([k, v]) => `${k}=${String(v)}`).join('; ').slice(0, 500);
      return seeOther(reply, back('triggered', { event, detail }));
    },
  );
}
