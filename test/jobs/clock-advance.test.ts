import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { JobHandlers, type JobRunContext } from '../../src/jobs/registry.js';
import { Worker } from '../../src/jobs/worker.js';
import { CLOCK_OFFSET_SETTING, SandboxClockService } from '../../src/modules/sandbox/clock-service.js';
import { freshDatabase, testDialect, type TestDatabase } from '../support/database.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe(`sandbox clock advance (${testDialect})`, () => {
  let database: TestDatabase;
  let clock: VirtualClock;
  let handlers: JobHandlers;
  let queue: JobQueue;
  let service: SandboxClockService;
  let base: number;
  /** What each handler saw: its kind, the due time and the clock while it ran. */
  let runs: Array<{ kind: string; runAt: number; now: number }>;

  beforeEach(async () => {
    database = await freshDatabase();
    clock = new VirtualClock();
    handlers = new JobHandlers();
    queue = new JobQueue(database, clock, handlers);
    service = new SandboxClockService(database, clock, queue, handlers);
    base = clock.now().getTime();
    runs = [];
  });
  afterEach(() => database.close());

  const record = (ctx: JobRunContext) => runs.push({ kind: ctx.job.kind, runAt: ctx.job.runAt.getTime(), now: ctx.clock.now().getTime() });
  const recorder = async (_payload: unknown, ctx: JobRunContext) => {
    record(ctx);
  };
  const enqueueAt = (kind: string, ms: number) => queue.enqueue(database.db, { kind, payload: {}, runAt: new Date(base + ms) });
  const status = async (kind: string) =>
    (await database.db.selectFrom('jobs').select('status').where('kind', '=', kind).executeTakeFirstOrThrow()).status;

  it('runs due jobs in time order with the clock standing at each job due time', async () => {
    handlers.register('job', recorder);
    await enqueueAt('job', 3 * HOUR);
    await enqueueAt('job', 1 * HOUR);
    await enqueueAt('job', 2 * HOUR);
    await enqueueAt('job', 1 * HOUR);
    await enqueueAt('job', 2 * DAY);

    const result = await service.advanceBy({ days: 1 });

    expect(result.jobsRun).toBe(4);
    expect(runs.map((r) => r.now - base)).toEqual([1 * HOUR, 1 * HOUR, 2 * HOUR, 3 * HOUR]);
    expect(runs.every((r) => r.now === r.runAt)).toBe(true);
    expect(result.now.getTime()).toBeGreaterThanOrEqual(base + DAY);
    expect(result.now.getTime()).toBeLessThan(base + DAY + 5000);
    // Unpinned afterwards: the clock runs on from the target.
    expect(clock.now().getTime()).toBeGreaterThanOrEqual(result.now.getTime());
    expect(await queue.counts()).toEqual({ pending: 1, running: 0, done: 4, failed: 0 });
  });

  it('runs the independent jobs of one instant `parallel` at a time (WORKER_CONCURRENCY through the context), the others alone', async () => {
    for (const parallel of [3, 12]) {
      service = new SandboxClockService(database, clock, queue, handlers, undefined, { parallel });
      let running = 0;
      let most = 0;
      const slow = async () => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
      };
      handlers.register(`charge-${parallel}`, slow, { parallel: true });
      handlers.register(`alone-${parallel}`, slow);
      for (let i = 0; i < 20; i++) await enqueueAt(`charge-${parallel}`, HOUR);
      await service.advanceBy({ days: 1 });
      expect(most).toBe(parallel);
      most = 0;
      for (let i = 0; i < 5; i++) await enqueueAt(`alone-${parallel}`, 2 * DAY);
      await service.advanceBy({ days: 2 });
      expect(most).toBe(1);
    }
  });

  it('runs jobs that handlers enqueue when they fall due before the target, in order; later ones wait', async () => {
    handlers.register('first', async (_p, ctx) => {
      record(ctx);
      const now = ctx.clock.now().getTime();
      await queue.enqueue(database.db, { kind: 'chained', payload: {}, runAt: new Date(now + 30 * MINUTE) });
      await queue.enqueue(database.db, { kind: 'next-month', payload: {}, runAt: new Date(now + 30 * DAY) });
    });
    handlers.register('chained', recorder);
    handlers.register('other', recorder);
    handlers.register('next-month', recorder);
    await enqueueAt('first', 1 * HOUR);
    await enqueueAt('other', 2 * HOUR);

    const first = await service.advanceBy({ days: 1 });
    expect(first.jobsRun).toBe(3);
    expect(runs.map((r) => [r.kind, r.now - base])).toEqual([
      ['first', 1 * HOUR],
      ['chained', 1 * HOUR + 30 * MINUTE],
      ['other', 2 * HOUR],
    ]);
    expect(await status('next-month')).toBe('pending');

    const second = await service.advance(new Date(base + 31 * DAY + HOUR));
    expect(second.jobsRun).toBe(1);
    expect(runs.at(-1)).toEqual({ kind: 'next-month', runAt: base + 30 * DAY + HOUR, now: base + 30 * DAY + HOUR });
  });

  it('records a failing job as retried without aborting, and runs its retry later in the same advance', async () => {
    let calls = 0;
    handlers.register('flaky', async (_p, ctx) => {
      record(ctx);
      calls += 1;
      if (calls === 1) throw new Error('acquirer unavailable');
    });
    handlers.register('broken', async () => {
      throw new Error('always');
    }, { maxAttempts: 2 });
    handlers.register('after', recorder);
    await enqueueAt('flaky', 10 * MINUTE);
    await enqueueAt('broken', 10 * MINUTE);
    await enqueueAt('after', 30 * MINUTE);

    const result = await service.advanceBy({ hours: 1 });

    expect(result.jobsRun).toBe(5); // flaky twice, broken twice, after once
    const [firstTry, retry, after] = runs;
    expect(firstTry).toMatchObject({ kind: 'flaky', now: base + 10 * MINUTE });
    expect(retry.kind).toBe('flaky');
    expect(retry.now - firstTry.now).toBeGreaterThanOrEqual(9_000);
    expect(retry.now - firstTry.now).toBeLessThanOrEqual(10_000);
    expect(after).toMatchObject({ kind: 'after', now: base + 30 * MINUTE });
    expect(await status('flaky')).toBe('done');
    expect(await status('broken')).toBe('failed');
  });

  it('persists the offset so a new service (a restart) reloads it', async () => {
    const result = await service.advanceBy({ days: 3 });
    const stored = await database.db.selectFrom('settings').select('value').where('key', '=', CLOCK_OFFSET_SETTING).executeTakeFirstOrThrow();
    expect(stored.value).toBe(String(clock.offset));
    expect(clock.offset).toBeGreaterThanOrEqual(3 * DAY - 1000);

    const restarted = new VirtualClock();
    expect(restarted.now().getTime()).toBeLessThan(base + DAY);
    await new SandboxClockService(database, restarted, new JobQueue(database, restarted), handlers).load();
    expect(restarted.offset).toBe(clock.offset);
    expect(restarted.now().getTime()).toBeGreaterThanOrEqual(result.now.getTime());
    expect(restarted.now().getTime()).toBeLessThan(result.now.getTime() + 5000);
  });

  it('adopts a further offset another instance persisted, and never stores a smaller one', async () => {
    await service.advanceBy({ days: 1 });
    // Another instance advanced to +10 days meanwhile.
    await database.db.updateTable('settings').set({ value: String(10 * DAY) }).where('key', '=', CLOCK_OFFSET_SETTING).execute();
    const result = await service.advanceBy({ minutes: 1 });
    expect(result.now.getTime()).toBeGreaterThanOrEqual(base + 10 * DAY + MINUTE);

    // Another instance advances further while this one is mid-advance (after it loaded the offset):
    // persisting must not pull the stored offset back.
    handlers.register('meanwhile', async () => {
      await database.db.updateTable('settings').set({ value: String(20 * DAY) }).where('key', '=', CLOCK_OFFSET_SETTING).execute();
    });
    await queue.enqueue(database.db, { kind: 'meanwhile', payload: {}, runAt: clock.now() });
    await service.advanceBy({ minutes: 1 });
    const stored = await database.db.selectFrom('settings').select('value').where('key', '=', CLOCK_OFFSET_SETTING).executeTakeFirstOrThrow();
    expect(stored.value).toBe(String(20 * DAY));
    // The next advance adopts it.
    expect((await service.advanceBy({ minutes: 1 })).now.getTime()).toBeGreaterThanOrEqual(base + 20 * DAY);
  });

  it('never moves the clock back: a past target runs what is due and leaves time where it is', async () => {
    handlers.register('overdue', recorder);
    await enqueueAt('overdue', -2 * HOUR);
    const before = clock.now().getTime();
    const result = await service.advance(new Date(base - DAY));
    expect(result.jobsRun).toBe(1);
    // An overdue job runs at the current time, not back at its run_at.
    expect(runs[0].now).toBeGreaterThanOrEqual(before);
    expect(result.now.getTime()).toBeGreaterThanOrEqual(before);
    expect(result.now.getTime()).toBeLessThan(before + 5000);
  });

  it('serializes concurrent advances: two "+1 hour" calls make two hours, each job in its own advance', async () => {
    handlers.register('job', recorder);
    await enqueueAt('job', 90 * MINUTE);
    const [a, b] = await Promise.all([service.advanceBy({ hours: 1 }), service.advanceBy({ hours: 1 })]);
    expect([a.jobsRun, b.jobsRun]).toEqual([0, 1]);
    expect(b.now.getTime()).toBeGreaterThanOrEqual(base + 2 * HOUR);
    expect(b.now.getTime()).toBeLessThan(base + 2 * HOUR + 5000);
    expect(runs[0].now).toBe(base + 90 * MINUTE);
  });

  it('pauses the local worker while it advances and resumes it afterwards', async () => {
    const worker = new Worker(queue, handlers, clock, { pollMs: 5 });
    service = new SandboxClockService(database, clock, queue, handlers, worker);
    const lockedBy: Record<string, string> = {};
    handlers.register('parent', async (_p, ctx) => {
      lockedBy.parent = ctx.job.lockedBy;
      // Due at once (pinned time): an unpaused worker would race the advance for it.
      await queue.enqueue(database.db, { kind: 'child', payload: {} });
      await new Promise((resolve) => setTimeout(resolve, 30));
    });
    handlers.register('child', async (_p, ctx) => {
      lockedBy.child = ctx.job.lockedBy;
    });
    handlers.register('afterwards', async (_p, ctx) => {
      lockedBy.afterwards = ctx.job.lockedBy;
    });
    worker.start();
    try {
      await enqueueAt('parent', HOUR);
      expect((await service.advanceBy({ hours: 2 })).jobsRun).toBe(2);
      // Under the worker's id, so under its instance's prefix (a restart takes back what a killed advance held).
      expect(lockedBy.parent).toMatch(new RegExp(`^${worker.workerId}:clock:[0-9a-f]{8}$`));
      expect(lockedBy.child).toBe(lockedBy.parent);

      await queue.enqueue(database.db, { kind: 'afterwards', payload: {} });
      await vi.waitFor(() => expect(lockedBy.afterwards).toBe(worker.workerId), { timeout: 5000, interval: 5 });
    } finally {
      await worker.stop();
    }
  });

  it('stops a job that keeps rescheduling itself, keeping the time reached', async () => {
    const guarded = new SandboxClockService(database, clock, queue, handlers, undefined, { maxJobsPerAdvance: 5 });
    handlers.register('loop', async (_p, ctx) => {
      record(ctx);
      await queue.enqueue(database.db, { kind: 'loop', payload: {}, runAt: new Date(ctx.clock.now().getTime() + MINUTE) });
    });
    await enqueueAt('loop', MINUTE);
    await expect(guarded.advanceBy({ days: 1 })).rejects.toThrow('sandbox advance stopped after 5 jobs');
    expect(runs.map((r) => r.now - base)).toEqual([1, 2, 3, 4, 5].map((n) => n * MINUTE));
    expect(clock.now().getTime()).toBeGreaterThanOrEqual(base + 5 * MINUTE);
    expect(clock.now().getTime()).toBeLessThan(base + 6 * MINUTE);
    expect((await queue.counts()).pending).toBe(1);
  });
});
