import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { JobHandlers, RetryLater, type BatchRunContext, type JobResult } from '../../src/jobs/registry.js';
import { runJobBatch } from '../../src/jobs/run-job.js';
import { Worker } from '../../src/jobs/worker.js';
import { SandboxClockService } from '../../src/modules/sandbox/clock-service.js';
import { freshDatabase, testDialect, type TestDatabase } from '../support/database.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Batch job kinds (JobHandlers.registerBatch): the jobs of one claim handed over together, each
 * outcome recorded as its own, a lane of their own in the worker, and a sandbox advance that
 * goes on while they wait.
 */
describe(`batch job kinds (${testDialect})`, () => {
  let database: TestDatabase;
  let clock: VirtualClock;
  let handlers: JobHandlers;
  let queue: JobQueue;
  let base: number;

  beforeEach(async () => {
    database = await freshDatabase();
    clock = new VirtualClock();
    handlers = new JobHandlers();
    queue = new JobQueue(database, clock, handlers);
    base = clock.now().getTime();
  });
  afterEach(() => database.close());

  const enqueueAt = (kind: string, ms: number, payload: unknown = {}) => queue.enqueue(database.db, { kind, payload, runAt: new Date(base + ms) }) as Promise<number>;
  const row = (id: number) => database.db.selectFrom('jobs').select(['status', 'attempts', 'run_at', 'last_error']).where('id', '=', id).executeTakeFirstOrThrow();
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('records each job of a batch as its own: done, waiting (RetryLater, no attempt spent) or failed; a handler that throws fails them all', async () => {
    const retryAt = new Date(base + HOUR);
    handlers.registerBatch('mixed', {
      size: 10,
      concurrency: 10,
      handler: async (payloads: { n: number }[]) => payloads.map(({ n }): JobResult => (n === 0 ? undefined : n === 1 ? new RetryLater(retryAt) : new Error(`job ${n} failed`))),
    });
    const ids = [await enqueueAt('mixed', 0, { n: 0 }), await enqueueAt('mixed', 0, { n: 1 }), await enqueueAt('mixed', 0, { n: 2 })];
    const jobs = await queue.claim('w', { limit: 3 });
    const runner = { queue, handlers, clock, logger: { info() {}, warn() {}, error() {} } };
    expect(await runJobBatch(runner, jobs, 'w')).toEqual(['done', 'rescheduled', 'retry']);
    expect(await row(ids[0])).toMatchObject({ status: 'done', attempts: 1 });
    expect(await row(ids[1])).toMatchObject({ status: 'pending', attempts: 0, run_at: retryAt.toISOString() });
    expect(await row(ids[2])).toMatchObject({ status: 'pending', attempts: 1, last_error: 'job 2 failed' });

    handlers.registerBatch('broken', { size: 10, concurrency: 10, handler: async () => Promise.reject(new Error('database gone')) });
    const broken = [await enqueueAt('broken', 0), await enqueueAt('broken', 0)];
    expect(await runJobBatch(runner, await queue.claim('w', { limit: 2, kinds: ['broken'] }), 'w')).toEqual(['retry', 'retry']);
    for (const id of broken) expect(await row(id)).toMatchObject({ status: 'pending', last_error: 'database gone' });
  });

  it('the worker runs a batch kind in its own lane: batches of its size, at most its concurrency beside the general slots', async () => {
    let running = 0;
    let most = 0;
    const sizes: number[] = [];
    handlers.registerBatch('charge', {
      size: 4,
      concurrency: 8,
      handler: async (payloads) => {
        sizes.push(payloads.length);
        most = Math.max(most, (running += payloads.length));
        await sleep(20);
        running -= payloads.length;
        return payloads.map(() => undefined);
      },
    });
    for (let i = 0; i < 40; i++) await enqueueAt('charge', 0);
    const worker = new Worker(queue, handlers, clock, { pollMs: 5, concurrency: 1 });
    worker.start();
    await vi.waitFor(async () => expect((await queue.counts()).done).toBe(40), { timeout: 10_000, interval: 20 });
    await worker.stop();
    expect(Math.max(...sizes)).toBeLessThanOrEqual(4);
    // The lane's 8, and the one general slot (which takes the kind's jobs too, in time order).
    expect(most).toBeGreaterThanOrEqual(8);
    expect(most).toBeLessThanOrEqual(9);
  });

  it('an advance starts the batches of a day side by side, each at its due time; jobs due within a minute share a batch; any other job waits for those before it', async () => {
    const calls: { due: number[]; now: number; after: number; ended: number }[] = [];
    let running = 0;
    let most = 0;
    handlers.registerBatch('charge', {
      size: 32,
      concurrency: 16,
      handler: async (payloads, ctx: BatchRunContext) => {
        const call = { due: ctx.jobs.map((j) => j.runAt.getTime() - base), now: ctx.clock.now().getTime() - base, after: 0, ended: 0 };
        calls.push(call);
        most = Math.max(most, ++running);
        await sleep(30);
        call.after = ctx.clock.now().getTime() - base;
        running--;
        call.ended = performance.now();
        return payloads.map(() => undefined);
      },
    });
    let settled = { at: 0, now: 0 };
    handlers.register('settle', async (_p, ctx) => {
      settled = { at: performance.now(), now: ctx.clock.now().getTime() - base };
    });
    // Ten billings an hour apart, three more within one minute of the first, and a job at noon.
    for (let h = 1; h <= 10; h++) await enqueueAt('charge', h * HOUR);
    for (const s of [10, 20, 30]) await enqueueAt('charge', HOUR + s * 1000);
    await enqueueAt('settle', 12 * HOUR);
    const service = new SandboxClockService(database, clock, queue, handlers);

    expect((await service.advanceBy({ days: 1 })).jobsRun).toBe(14);
    expect(calls.map((c) => c.due)).toEqual([[HOUR, HOUR + 10_000, HOUR + 20_000, HOUR + 30_000], ...[2, 3, 4, 5, 6, 7, 8, 9, 10].map((h) => [h * HOUR])]);
    // Each batch at the time of its latest job, from start to end, whatever the advance did meanwhile.
    expect(calls.map((c) => c.now)).toEqual([HOUR + 30_000, ...[2, 3, 4, 5, 6, 7, 8, 9, 10].map((h) => h * HOUR)]);
    expect(calls.map((c) => c.after)).toEqual(calls.map((c) => c.now));
    expect(most).toBeGreaterThan(1);
    expect(settled.now).toBe(12 * HOUR);
    expect(settled.at).toBeGreaterThanOrEqual(Math.max(...calls.map((c) => c.ended)));
  });
});
