import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { DEFAULT_LEASE_MS, JobQueue, type ClaimedJob } from '../../src/jobs/queue.js';
import { JobHandlers, RetryLater } from '../../src/jobs/registry.js';
import type { JobLogger } from '../../src/jobs/run-job.js';
import { Worker } from '../../src/jobs/worker.js';
import { freshDatabase, secondConnection, testDialect, type TestDatabase } from '../support/database.js';
import { ManualClock } from './manual-clock.js';

/** The same contract on whichever engine freshDatabase() gives (SQLite, or PostgreSQL with TEST_DATABASE_URL). */
describe(`job queue contract (${testDialect})`, () => {
  let database: TestDatabase;
  let clock: ManualClock;
  let handlers: JobHandlers;
  let queue: JobQueue;

  beforeEach(async () => {
    database = await freshDatabase();
    clock = new ManualClock();
    handlers = new JobHandlers();
    queue = new JobQueue(database, clock, handlers);
  });
  afterEach(() => database.close());

  const later = (ms: number) => new Date(clock.now().getTime() + ms);
  const row = (id: number) => database.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const enqueue = (kind: string, runAt?: Date, extra: { maxAttempts?: number; payload?: unknown } = {}) =>
    queue.enqueue(database.db, { kind, payload: extra.payload ?? { kind }, runAt, maxAttempts: extra.maxAttempts }) as Promise<number>;

  it('enqueues inside the caller transaction: a rollback leaves no job, a commit keeps it', async () => {
    await expect(
      database.db.transaction().execute(async (trx) => {
        expect(await queue.enqueue(trx, { kind: 'charge', payload: { paymentId: 'p1' } })).toBeTypeOf('number');
        throw new Error('business write failed');
      }),
    ).rejects.toThrow('business write failed');
    expect(await queue.counts()).toEqual({ pending: 0, running: 0, done: 0, failed: 0 });

    const id = await database.db.transaction().execute((trx) => queue.enqueue(trx, { kind: 'charge', payload: { paymentId: 'p2' } }));
    const stored = await row(id!);
    expect(stored).toMatchObject({ kind: 'charge', status: 'pending', attempts: 0, max_attempts: 10, run_at: clock.now().toISOString() });
    expect(JSON.parse(stored.payload)).toEqual({ paymentId: 'p2' });
  });

  it('makes a second enqueue with the same dedupe key a no-op, also inside a transaction', async () => {
    const first = await queue.enqueue(database.db, { kind: 'billing', payload: 1, dedupeKey: 'billing:s1:1' });
    expect(first).toBeTypeOf('number');
    expect(await queue.enqueue(database.db, { kind: 'billing', payload: 2, dedupeKey: 'billing:s1:1' })).toBeNull();

    // The conflict must not poison the transaction: the next statement in it still works (PostgreSQL).
    const next = await database.db.transaction().execute(async (trx) => {
      expect(await queue.enqueue(trx, { kind: 'billing', payload: 3, dedupeKey: 'billing:s1:1' })).toBeNull();
      return queue.enqueue(trx, { kind: 'billing', payload: 4, dedupeKey: 'billing:s1:2' });
    });
    expect(next).toBeTypeOf('number');
    // Jobs without a key never collide.
    await queue.enqueue(database.db, { kind: 'plain', payload: null });
    await queue.enqueue(database.db, { kind: 'plain', payload: null });

    const rows = await database.db.selectFrom('jobs').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.dedupe_key, JSON.parse(r.payload)])).toEqual([
      ['billing:s1:1', 1],
      ['billing:s1:2', 4],
      [null, null],
      [null, null],
    ]);
  });

  it('enqueue: a job row with its dedupe rule, committed or rolled back with the transaction', async () => {
    await expect(
      database.db.transaction().execute(async (trx) => {
        await queue.enqueue(trx, { kind: 'sweep', payload: { date: '2026-01-01' }, dedupeKey: 'settlement:2026-01-01' });
        throw new Error('business write failed');
      }),
    ).rejects.toThrow('business write failed');
    expect(await queue.counts()).toEqual({ pending: 0, running: 0, done: 0, failed: 0 });
    await database.db.transaction().execute(async (trx) => {
      await queue.enqueue(trx, { kind: 'sweep', payload: { date: '2026-01-02' }, dedupeKey: 'settlement:2026-01-02', runAt: later(60_000) });
      // A second one under the same key, in the same transaction and out of it: skipped, no error.
      await queue.enqueue(trx, { kind: 'sweep', payload: { date: 'again' }, dedupeKey: 'settlement:2026-01-02' });
      await queue.enqueue(trx, { kind: 'other', payload: null });
    });
    await queue.enqueue(database.db, { kind: 'sweep', payload: { date: 'again' }, dedupeKey: 'settlement:2026-01-02' });
    const rows = await database.db.selectFrom('jobs').selectAll().where('kind', '=', 'sweep').execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'pending', attempts: 0, max_attempts: 10, run_at: later(60_000).toISOString(), dedupe_key: 'settlement:2026-01-02' });
    expect(JSON.parse(rows[0].payload)).toEqual({ date: '2026-01-02' });
  });

  it('claims due jobs in run_at then id order, up to the limit, and marks them running', async () => {
    const c = await enqueue('c', later(-1000));
    const a1 = await enqueue('a1', later(-5000));
    const b = await enqueue('b', later(-2000));
    const a2 = await enqueue('a2', later(-5000));
    const first = await queue.claim('w1', { limit: 3 });
    expect(first.map((j) => j.id)).toEqual([a1, a2, b]);
    expect(first[0]).toMatchObject({ kind: 'a1', payload: { kind: 'a1' }, attempts: 1, lockedBy: 'w1' });
    // The fallback lease (the service passes JOB_LEASE_MS): short, since a running job's worker renews it.
    expect(DEFAULT_LEASE_MS).toBe(30_000);
    expect(first[0].lockedUntil.toISOString()).toBe(new Date(clock.wallNow().getTime() + DEFAULT_LEASE_MS).toISOString());
    expect((await row(a1)).status).toBe('running');

    expect((await queue.claim('w2', { limit: 10 })).map((j) => j.id)).toEqual([c]);
    expect(await queue.claim('w2', { limit: 10 })).toEqual([]);
  });

  it('does not claim a job before its run_at; a job due exactly at dueBy is due', async () => {
    const id = await enqueue('future', later(60_000));
    expect(await queue.claim('w', { limit: 5 })).toEqual([]);
    expect(await queue.claim('w', { limit: 5, dueBy: later(59_999) })).toEqual([]);
    expect((await queue.claim('w', { limit: 5, dueBy: later(60_000) })).map((j) => j.id)).toEqual([id]);
  });

  it('claims only the kinds asked for', async () => {
    await enqueue('webhook');
    const charge = await enqueue('charge');
    expect((await queue.claim('w', { limit: 5, kinds: ['charge'] })).map((j) => j.id)).toEqual([charge]);
    expect(await queue.claim('w', { limit: 5, kinds: [] })).toEqual([]);
  });

  it('re-claims the job of a dead worker once its wall-clock lease expires, and fences the dead worker out', async () => {
    const id = await enqueue('charge');
    const [dead] = await queue.claim('worker-a', { limit: 1, leaseMs: 60_000 });
    expect(dead.id).toBe(id);

    // Business time moving (the sandbox clock) does not expire a lease: only wall time does.
    clock.advanceBusiness(24 * 3600_000);
    expect(await queue.claim('worker-b', { limit: 1 })).toEqual([]);
    clock.advanceWall(60_000);
    expect(await queue.claim('worker-b', { limit: 1 })).toEqual([]);
    clock.advanceWall(1);
    const [retaken] = await queue.claim('worker-b', { limit: 1 });
    expect(retaken).toMatchObject({ id, attempts: 2, lockedBy: 'worker-b' });

    // The dead worker comes back: neither its success nor its failure is recorded.
    expect(await queue.complete(dead, 'worker-a')).toBe(false);
    expect(await queue.fail(dead, 'worker-a', new Error('late'))).toBe('lost');
    expect(await row(id)).toMatchObject({ status: 'running', locked_by: 'worker-b', last_error: null });

    expect(await queue.complete(retaken, 'worker-b')).toBe(true);
    expect((await row(id)).status).toBe('done');
    expect(await queue.complete(retaken, 'worker-b')).toBe(false);
  });

  it('fences by claim, not only by worker id: an old claim of the same worker cannot finish a newer one', async () => {
    const id = await enqueue('charge');
    const [old] = await queue.claim('same', { limit: 1, leaseMs: 1000 });
    clock.advanceWall(1001);
    const [fresh] = await queue.claim('same', { limit: 1 });
    expect(fresh.attempts).toBe(2);
    expect(await queue.complete(old, 'same')).toBe(false);
    expect(await queue.complete(fresh, 'same')).toBe(true);
    expect((await row(id)).status).toBe('done');
  });

  it('fails a job whose lease expired on its last attempt instead of running it again', async () => {
    const id = await enqueue('poison', undefined, { maxAttempts: 1 });
    await queue.claim('a', { limit: 1, leaseMs: 1000 });
    clock.advanceWall(1001);
    expect(await queue.claim('b', { limit: 1 })).toEqual([]);
    expect(await row(id)).toMatchObject({ status: 'failed', attempts: 1 });
    expect((await row(id)).last_error).toMatch(/lease expired/);
  });

  it('fails with exponential backoff, then runs the job again when the retry falls due', async () => {
    const id = await enqueue('charge');
    const [job] = await queue.claim('w', { limit: 1 });
    expect(await queue.fail(job, 'w', new Error('acquirer timeout'))).toBe('retry');
    const failed = await row(id);
    expect(failed).toMatchObject({ status: 'pending', attempts: 1, last_error: 'acquirer timeout', locked_until: null });
    const delay = new Date(failed.run_at).getTime() - clock.now().getTime();
    expect(delay).toBeGreaterThanOrEqual(9_000);
    expect(delay).toBeLessThanOrEqual(10_000);

    expect(await queue.claim('w', { limit: 1 })).toEqual([]);
    const [again] = await queue.claim('w', { limit: 1, dueBy: new Date(failed.run_at) });
    expect(again).toMatchObject({ id, attempts: 2 });
    // The second failure waits about twice as long.
    await queue.fail(again, 'w', 'still down');
    const second = await row(id);
    expect(new Date(second.run_at).getTime() - clock.now().getTime()).toBeGreaterThanOrEqual(18_000);
    expect(second.last_error).toBe('still down');

    const [third] = await queue.claim('w', { limit: 1, dueBy: new Date(second.run_at) });
    expect(await queue.complete(third, 'w')).toBe(true);
    expect(await row(id)).toMatchObject({ status: 'done', attempts: 3 });
  });

  it('honours an explicit retryAt', async () => {
    const id = await enqueue('charge');
    const [job] = await queue.claim('w', { limit: 1 });
    await queue.fail(job, 'w', new Error('x'), { retryAt: later(3600_000) });
    expect((await row(id)).run_at).toBe(later(3600_000).toISOString());
  });

  it('stores only a short message: no stack, one line, at most 500 characters', async () => {
    const id = await enqueue('charge');
    const [job] = await queue.claim('w', { limit: 1 });
    await queue.fail(job, 'w', new Error(`first line\n${'x'.repeat(2000)}`));
    const { last_error } = await row(id);
    expect(last_error).toHaveLength(500);
    expect(last_error!.startsWith('first line x')).toBe(true);
    expect(last_error).not.toMatch(/\n|at .*queue\.contract/);
  });

  it('marks a job failed after max attempts and never claims it again', async () => {
    const id = await enqueue('charge', undefined, { maxAttempts: 2 });
    const [one] = await queue.claim('w', { limit: 1 });
    expect(await queue.fail(one, 'w', new Error('one'))).toBe('retry');
    const [two] = await queue.claim('w', { limit: 1, dueBy: later(3600_000) });
    expect(await queue.fail(two, 'w', new Error('two'))).toBe('failed');
    expect(await row(id)).toMatchObject({ status: 'failed', attempts: 2, last_error: 'two' });
    clock.advanceWall(3600_000);
    expect(await queue.claim('w', { limit: 1, dueBy: later(365 * 86400_000) })).toEqual([]);
  });

  it('takes the default max attempts from the handler registry', async () => {
    handlers.register('limited', async () => {}, { maxAttempts: 3 });
    expect((await row(await enqueue('limited'))).max_attempts).toBe(3);
    expect((await row(await enqueue('limited', undefined, { maxAttempts: 5 }))).max_attempts).toBe(5);
    expect((await row(await enqueue('unregistered'))).max_attempts).toBe(10);
  });

  it('RetryLater reschedules without counting a failure', async () => {
    const seen: Date[] = [];
    const retryAt = later(2 * 3600_000);
    handlers.register('await-payment', async (_payload, ctx) => {
      seen.push(ctx.clock.now());
      if (seen.length === 1) throw new RetryLater(retryAt);
    });
    const worker = new Worker(queue, handlers, clock, { pollMs: 10 });
    const id = await enqueue('await-payment');

    expect(await worker.runOnce()).toBe(1);
    expect(await row(id)).toMatchObject({ status: 'pending', attempts: 0, last_error: null, run_at: retryAt.toISOString() });
    expect(await worker.runOnce()).toBe(0);
    expect(await worker.runOnce(retryAt)).toBe(1);
    expect(await row(id)).toMatchObject({ status: 'done', attempts: 1 });
    expect(seen).toHaveLength(2);
  });

  it('worker: a handler error is logged (message only) and recorded as a failed attempt', async () => {
    const logged: Array<{ obj: Record<string, unknown>; msg?: string }> = [];
    const logger: JobLogger = { info() {}, warn() {}, error: (obj, msg) => logged.push({ obj: obj as Record<string, unknown>, msg }) };
    handlers.register('boom', async () => {
      throw new Error('card number 4111 rejected');
    });
    const worker = new Worker(queue, handlers, clock, { pollMs: 10, logger });
    const id = await enqueue('boom');
    expect(await worker.runOnce()).toBe(1);
    expect(await row(id)).toMatchObject({ status: 'pending', attempts: 1, last_error: 'card number 4111 rejected' });
    expect(logged).toHaveLength(1);
    expect(logged[0].obj).toEqual({ event: 'job.failed', jobId: id, kind: 'boom', attempt: 1, error: 'card number 4111 rejected', outcome: 'retry' });
  });

  it('worker: a job of an unknown kind fails with a clear error', async () => {
    const worker = new Worker(queue, handlers, clock, { pollMs: 10 });
    const id = await enqueue('nobody-handles-this');
    expect(await worker.runOnce()).toBe(1);
    expect((await row(id)).last_error).toBe('no handler registered for job kind "nobody-handles-this"');
  });

  it('worker: runs jobs with at most `concurrency` at a time and stop() waits for those in flight', async () => {
    let active = 0;
    let maxActive = 0;
    const finished: number[] = [];
    handlers.register('slow', async (_payload, ctx) => {
      active += 1;
      maxActive = Math.max(maxActive, active);
      await new Promise((resolve) => setTimeout(resolve, 20));
      active -= 1;
      finished.push(ctx.job.id);
    });
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) ids.push(await enqueue('slow'));
    const worker = new Worker(queue, handlers, clock, { pollMs: 5, concurrency: 3 });
    worker.start();
    await vi.waitFor(() => expect(finished.length).toBeGreaterThanOrEqual(4), { timeout: 5000, interval: 5 });
    await worker.stop();
    // Nothing was cut off half-way: every job a handler started has finished and is recorded done.
    expect(active).toBe(0);
    const counts = await queue.counts();
    expect(counts.running).toBe(0);
    expect(counts.done).toBe(finished.length);
    expect(maxActive).toBe(3);

    // Stopped means stopped: no more claims.
    const pendingAfterStop = counts.pending;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect((await queue.counts()).pending).toBe(pendingAfterStop);

    worker.start();
    await vi.waitFor(async () => expect((await queue.counts()).done).toBe(10), { timeout: 5000, interval: 10 });
    await worker.stop();
    expect([...finished].sort((a, b) => a - b)).toEqual(ids);
  });

  it('worker: with a backlog, freed slots are refilled at once instead of waiting for the idle poll', async () => {
    let done = 0;
    handlers.register('quick', async () => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      done += 1;
    });
    for (let i = 0; i < 40; i++) await enqueue('quick');
    // An idle poll an hour away: only refills can get through 40 jobs with 4 slots.
    const worker = new Worker(queue, handlers, clock, { pollMs: 3_600_000, concurrency: 4 });
    worker.start();
    try {
      await vi.waitFor(() => expect(done).toBe(40), { timeout: 10_000, interval: 10 });
    } finally {
      await worker.stop();
    }
    expect((await queue.counts()).done).toBe(40);
  });

  it('worker: pause() stops claiming until resume()', async () => {
    const ran: number[] = [];
    handlers.register('k', async (_p, ctx) => {
      ran.push(ctx.job.id);
    });
    // The app's pino logger fits the worker's logger type.
    const worker = new Worker(queue, handlers, clock, { pollMs: 5, logger: createLogger('silent') });
    worker.start();
    await worker.pause();
    const id = await enqueue('k');
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(ran).toEqual([]);
    worker.resume();
    await vi.waitFor(() => expect(ran).toEqual([id]), { timeout: 5000, interval: 5 });
    await worker.stop();
  });

  it('reports the next due time and counts, and purges only old done jobs', async () => {
    expect(await queue.nextDueAt()).toBeNull();
    const done = await enqueue('x');
    const [job] = await queue.claim('w', { limit: 1 });
    await queue.complete(job, 'w');
    await enqueue('y', later(5000));
    await enqueue('z', later(1000));
    const failing = await enqueue('f', undefined, { maxAttempts: 1 });
    const [f] = await queue.claim('w', { limit: 1 });
    expect(f.id).toBe(failing);
    await queue.fail(f, 'w', new Error('no'));

    expect((await queue.nextDueAt())?.toISOString()).toBe(later(1000).toISOString());
    expect(await queue.counts()).toEqual({ pending: 2, running: 0, done: 1, failed: 1 });

    expect(await queue.purgeFinished(clock.now())).toBe(0); // not older than the cutoff yet
    clock.advanceBusiness(1);
    expect(await queue.purgeFinished(clock.now())).toBe(1);
    expect(await database.db.selectFrom('jobs').select('id').where('id', '=', done).executeTakeFirst()).toBeUndefined();
    expect(await queue.counts()).toEqual({ pending: 2, running: 0, done: 0, failed: 1 });
  });

  it.runIf(testDialect === 'postgres')('two instances on two pools race over 500 jobs: each runs exactly once', async () => {
    const other = await secondConnection(database);
    try {
      const total = 500;
      await database.db.transaction().execute(async (trx) => {
        for (let i = 0; i < total; i++) await queue.enqueue(trx, { kind: 'race', payload: { i } });
      });
      const executions = new Map<number, number>();
      const perWorker = { a: 0, b: 0 };
      const handlersFor = (name: 'a' | 'b') =>
        new JobHandlers().register('race', async (_payload, ctx) => {
          executions.set(ctx.job.id, (executions.get(ctx.job.id) ?? 0) + 1);
          perWorker[name] += 1;
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
        });
      const workerA = new Worker(new JobQueue(database, clock), handlersFor('a'), clock, { pollMs: 2, concurrency: 8, workerId: 'a' });
      const workerB = new Worker(new JobQueue(other, clock), handlersFor('b'), clock, { pollMs: 2, concurrency: 8, workerId: 'b' });
      workerA.start();
      workerB.start();
      await vi.waitFor(async () => expect((await queue.counts()).done).toBe(total), { timeout: 15_000, interval: 50 });
      await Promise.all([workerA.stop(), workerB.stop()]);

      expect(executions.size).toBe(total);
      expect([...executions.values()].filter((n) => n !== 1)).toEqual([]);
      expect(perWorker.a + perWorker.b).toBe(total);
      expect(perWorker.a).toBeGreaterThan(0);
      expect(perWorker.b).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });

  it.runIf(testDialect === 'postgres')('concurrent claims on two pools never hand out the same job', async () => {
    const other = await secondConnection(database);
    try {
      const total = 300;
      await database.db.transaction().execute(async (trx) => {
        for (let i = 0; i < total; i++) await queue.enqueue(trx, { kind: 'race', payload: { i } });
      });
      const queues = [queue, new JobQueue(other, clock)];
      const batches: ClaimedJob[][] = await Promise.all(
        Array.from({ length: 40 }, (_, i) => queues[i % 2].claim(`w${i}`, { limit: 10 })),
      );
      const ids = batches.flat().map((j) => j.id);
      expect(new Set(ids).size).toBe(ids.length);
      // Together with what is left, every job was handed out exactly once.
      const rest = await queue.claim('last', { limit: total });
      expect(ids.length + rest.length).toBe(total);
      expect(new Set([...ids, ...rest.map((j) => j.id)]).size).toBe(total);
    } finally {
      await other.close();
    }
  });
});
