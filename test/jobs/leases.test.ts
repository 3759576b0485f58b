import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { hostname } from 'node:os';
import { SystemClock, VirtualClock, type Clock } from '../../src/clock.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { LeaseKeeper } from '../../src/jobs/lease-keeper.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { JobHandlers } from '../../src/jobs/registry.js';
import type { JobLogger } from '../../src/jobs/run-job.js';
import { Worker } from '../../src/jobs/worker.js';
import { SandboxClockService } from '../../src/modules/sandbox/clock-service.js';
import { freshDatabase, testDialect, type TestDatabase } from '../support/database.js';
import { ManualClock } from './manual-clock.js';

/**
 * Short leases kept alive by a heartbeat, and the takeover at start (JobQueue.releaseAbandoned):
 * a dead worker's jobs are free within one lease, a restarted instance takes back at once what
 * its previous process held, and a live but slow job is never taken twice. Real timers with
 * 300 ms leases where time must really pass; the manual clock elsewhere.
 */
describe(`job leases: heartbeat and takeover (${testDialect})`, () => {
  const LEASE = 300;
  let database: TestDatabase;
  const stops: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    database = await freshDatabase();
  });
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
    await database.close();
  });

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const row = (id: number) => database.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  /** What a killed process leaves behind: a running job, its lease still on. */
  const leftRunning = async (clock: Clock, lockedBy: string, options: { leaseMs?: number; attempts?: number; maxAttempts?: number } = {}) => {
    const stamp = clock.now().toISOString();
    const inserted = await database.db
      .insertInto('jobs')
      .values({
        kind: 'held',
        payload: JSON.stringify({ lockedBy }),
        run_at: new Date(clock.now().getTime() - 60_000).toISOString(),
        status: 'running',
        attempts: options.attempts ?? 1,
        max_attempts: options.maxAttempts ?? 5,
        dedupe_key: null,
        locked_by: lockedBy,
        locked_until: new Date(clock.wallNow().getTime() + (options.leaseMs ?? 3600_000)).toISOString(),
        last_error: null,
        created_at: stamp,
        updated_at: stamp,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(inserted.id);
  };
  const worker = (queue: JobQueue, handlers: JobHandlers, clock: Clock, options: Partial<ConstructorParameters<typeof Worker>[3]> = {}) => {
    const w = new Worker(queue, handlers, clock, { pollMs: 20, leaseMs: LEASE, ...options });
    stops.push(() => w.stop());
    return w;
  };

  it('a worker that heartbeats keeps its job past the lease: another claimer never gets it', async () => {
    const clock = new SystemClock();
    const queue = new JobQueue(database, clock);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    stops.push(async () => release()); // runs before the worker's stop, even when an assertion failed
    let runs = 0;
    const handlers = new JobHandlers().register('slow', async () => {
      runs += 1;
      await gate;
    });
    const id = (await queue.enqueue(database.db, { kind: 'slow', payload: {} }))!;
    worker(queue, handlers, clock).start();
    await vi.waitFor(async () => expect((await row(id)).status).toBe('running'), { timeout: 2000, interval: 10 });

    // Four leases long, another instance keeps asking: the heartbeat keeps the lease ahead.
    const until = Date.now() + 4 * LEASE;
    while (Date.now() < until) {
      expect(await queue.claim('other-instance/1-aaaaaaaa', { limit: 5 })).toEqual([]);
      expect(new Date((await row(id)).locked_until!).getTime()).toBeGreaterThan(Date.now());
      await sleep(25);
    }
    release();
    await vi.waitFor(async () => expect(await row(id)).toMatchObject({ status: 'done', attempts: 1 }), { timeout: 2000, interval: 10 });
    expect(runs).toBe(1);
  });

  it('a worker that stopped heartbeating (killed) loses its job once the short lease ends, and is fenced out', async () => {
    const clock = new SystemClock();
    const queue = new JobQueue(database, clock);
    const id = (await queue.enqueue(database.db, { kind: 'charge', payload: {} }))!;
    const [job] = await queue.claim('dead/1-deadbeef', { limit: 1, leaseMs: LEASE });
    const keeper = new LeaseKeeper(queue, 'dead/1-deadbeef', LEASE, { info() {}, warn() {}, error() {} });
    keeper.hold(job);
    await sleep(2 * LEASE);
    // Alive: past its first lease, still held.
    expect(await queue.claim('other/2-aaaaaaaa', { limit: 1 })).toEqual([]);

    await keeper.stop(); // kill -9: no more beats
    const killedAt = Date.now();
    await vi.waitFor(
      async () => {
        const [retaken] = await queue.claim('other/2-aaaaaaaa', { limit: 1, leaseMs: 60_000 });
        expect(retaken).toMatchObject({ id, attempts: 2, lockedBy: 'other/2-aaaaaaaa' });
      },
      { timeout: 3000, interval: 20 },
    );
    // Within about one lease of the last beat, not minutes.
    expect(Date.now() - killedAt).toBeLessThan(LEASE + 500);
    expect(await queue.complete(job, 'dead/1-deadbeef')).toBe(false);
    expect(await row(id)).toMatchObject({ status: 'running', locked_by: 'other/2-aaaaaaaa' });
  });

  it('releaseAbandoned takes back exactly what the previous process of this instance held', async () => {
    const clock = new ManualClock();
    const queue = new JobQueue(database, clock);
    // `_` in the instance id: a LIKE pattern would also match "instXa/".
    const me = 'inst_a/333-cccccccc';
    const previous = await leftRunning(clock, 'inst_a/111-aaaaaaaa');
    const previousAdvance = await leftRunning(clock, 'inst_a/111-aaaaaaaa:clock:bbbbbbbb');
    const lastAttempt = await leftRunning(clock, 'inst_a/111-aaaaaaaa', { attempts: 1, maxAttempts: 1 });
    const otherInstance = await leftRunning(clock, 'inst_b/222-bbbbbbbb');
    const lookalike = await leftRunning(clock, 'instXa/444-dddddddd');
    const longerName = await leftRunning(clock, 'inst_a2/555-eeeeeeee');
    const mine = await leftRunning(clock, me);
    const myAdvance = await leftRunning(clock, `${me}:clock:ffffffff`);

    const released = await queue.releaseAbandoned({ instanceId: 'inst_a', workerId: me });
    // SQLite has one writer, so one instance: every running job not this process's is a dead one's.
    // PostgreSQL: only this instance's; another instance may be alive and waits for its lease.
    const expected = testDialect === 'sqlite' ? [previous, previousAdvance, lastAttempt, otherInstance, lookalike, longerName] : [previous, previousAdvance, lastAttempt];
    expect(released).toBe(expected.length);

    // The wall clock has not moved: only released leases are over.
    const retaken = await queue.claim(me, { limit: 20, leaseMs: 60_000 });
    expect(retaken.map((j) => j.id).sort((a, b) => a - b)).toEqual(expected.filter((id) => id !== lastAttempt));
    expect(retaken.every((j) => j.attempts === 2)).toBe(true);
    // The one on its last attempt is ended, not run a third time.
    expect(await row(lastAttempt)).toMatchObject({ status: 'failed', attempts: 1 });
    expect((await row(lastAttempt)).last_error).toMatch(/lease expired/);
    // This process's own jobs (worker and sandbox advance) are untouched.
    for (const id of [mine, myAdvance]) expect(new Date((await row(id)).locked_until!).getTime()).toBeGreaterThan(clock.wallNow().getTime());
    if (testDialect === 'postgres') {
      for (const id of [otherInstance, lookalike, longerName]) {
        const untouched = await row(id);
        expect(untouched.status).toBe('running');
        expect(new Date(untouched.locked_until!).getTime()).toBe(clock.wallNow().getTime() + 3600_000);
      }
    }
  });

  it('a worker with an instance id takes back its previous process\'s job at start, before the lease ends', async () => {
    const clock = new SystemClock();
    const queue = new JobQueue(database, clock);
    const ran: number[] = [];
    const handlers = new JobHandlers().register('held', async (_payload, ctx) => void ran.push(ctx.job.id));
    const id = await leftRunning(clock, 'inst_a/99999-deadbeef'); // an hour of lease left
    const logged: Array<{ obj: object; msg?: string }> = [];
    const logger: JobLogger = { info() {}, warn: (obj, msg) => logged.push({ obj, msg }), error() {} };
    const w = worker(queue, handlers, clock, { instanceId: 'inst_a', logger });
    expect(w.workerId).toMatch(new RegExp(`^inst_a/${process.pid}-[0-9a-f]{8}$`));
    w.start();
    await vi.waitFor(async () => expect(await row(id)).toMatchObject({ status: 'done', attempts: 2 }), { timeout: 2000, interval: 10 });
    expect(ran).toEqual([id]);
    expect(logged).toEqual([{ obj: { workerId: w.workerId, jobs: 1 }, msg: "took back the running jobs of this instance's previous process" }]);
  });

  it('a slow job on a live worker is run once, though it runs longer than the lease and two workers poll', async () => {
    const clock = new SystemClock();
    const queue = new JobQueue(database, clock);
    const executions = new Map<number, number>();
    const handlers = new JobHandlers().register('slow', async (_payload, ctx) => {
      executions.set(ctx.job.id, (executions.get(ctx.job.id) ?? 0) + 1);
      await sleep(4 * LEASE);
    });
    const id = (await queue.enqueue(database.db, { kind: 'slow', payload: {} }))!;
    // Free slots on both (the holder too could re-take its own expired job). No instance ids: two
    // workers on one SQLite database that each took over at start would be the misconfiguration
    // releaseAbandoned warns about.
    worker(queue, handlers, clock).start();
    worker(new JobQueue(database, clock), handlers, clock).start();
    await vi.waitFor(async () => expect((await row(id)).status).toBe('done'), { timeout: 5000, interval: 20 });
    expect(executions).toEqual(new Map([[id, 1]]));
    expect((await row(id)).attempts).toBe(1);
  });

  it('a sandbox advance heartbeats the jobs it holds, under its worker\'s instance prefix', async () => {
    const clock = new VirtualClock();
    const queue = new JobQueue(database, clock);
    let runs = 0;
    const handlers = new JobHandlers().register('slow', async () => {
      runs += 1;
      await sleep(4 * LEASE);
    });
    // The local worker (not started, like ROLE=api) lends the advance its id and lease.
    const local = new Worker(queue, handlers, clock, { pollMs: 20, leaseMs: LEASE, instanceId: 'inst_a' });
    const service = new SandboxClockService(database, clock, queue, handlers, local);
    // Another instance polling all along: it must not take the job from the advance.
    worker(new JobQueue(database, clock), handlers, clock).start();
    const id = (await queue.enqueue(database.db, { kind: 'slow', payload: {}, runAt: new Date(clock.now().getTime() + 3600_000) }))!;

    const result = await service.advanceBy({ hours: 2 });
    expect(result.jobsRun).toBe(1);
    expect(runs).toBe(1);
    const done = await row(id);
    expect(done).toMatchObject({ status: 'done', attempts: 1 });
    expect(done.locked_by).toMatch(new RegExp(`^${local.workerId}:clock:[0-9a-f]{8}$`));
  });

  it('a failed renewal is logged (message only) and retried at the next beat; nothing held, no beat', async () => {
    let calls = 0;
    const flaky = {
      async renewLeases() {
        calls += 1;
        if (calls === 1) throw Object.assign(new Error('connection reset'), { stack: 'SECRET STACK' });
        return 1;
      },
    } as unknown as JobQueue;
    const errors: Array<{ obj: object; msg?: string }> = [];
    const keeper = new LeaseKeeper(flaky, 'inst_a/1-aaaaaaaa', 60, { info() {}, warn() {}, error: (obj, msg) => errors.push({ obj, msg }) });
    const job = { id: 7 } as Parameters<LeaseKeeper['hold']>[0];
    keeper.hold(job);
    await vi.waitFor(() => expect(calls).toBeGreaterThanOrEqual(2), { timeout: 1000, interval: 5 });
    expect(errors).toEqual([{ obj: { workerId: 'inst_a/1-aaaaaaaa', error: 'connection reset' }, msg: 'job lease renewal failed' }]);
    keeper.release(job);
    const after = calls;
    await sleep(150);
    expect(calls).toBe(after); // nothing held: no timer, no beat
    await keeper.stop();
  });
});

describe('JOB_LEASE_MS and INSTANCE_ID settings', () => {
  it('default to a 30 s lease and `<hostname>:<PORT>`, and are validated', () => {
    const defaults = loadConfig({});
    expect(defaults.jobLeaseMs).toBe(30_000);
    expect(defaults.instanceId).toBe(`${hostname()}:8080`.replace(/[^A-Za-z0-9._:-]/g, '-'));
    expect(loadConfig({ PORT: '9090' }).instanceId.endsWith(':9090')).toBe(true);
    expect(loadConfig({ JOB_LEASE_MS: '1000', INSTANCE_ID: 'gw-1.prod_a:eu' })).toMatchObject({ jobLeaseMs: 1000, instanceId: 'gw-1.prod_a:eu' });
    for (const bad of ['999', '600001', '2.5', 'soon']) expect(() => loadConfig({ JOB_LEASE_MS: bad })).toThrow(/JOB_LEASE_MS/);
    // `/` separates the instance from the process in worker ids; the rest could not be told apart in logs or SQL.
    for (const bad of ['gw/1', 'gw 1', 'gw%', 'é', 'x'.repeat(101)]) expect(() => loadConfig({ INSTANCE_ID: bad })).toThrow(ConfigError);
    expect(loadConfig({ INSTANCE_ID: 'x'.repeat(100) }).instanceId).toHaveLength(100);
  });
});
