import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { closeContext, createContext, type AppContext } from '../../src/root/context.js';
import { createLogger } from '../../src/logger.js';
import { Worker } from '../../src/jobs/worker.js';
import { DELIVER_JOB, recordNotifications } from '../../src/modules/webhooks/outbox.js';
import { secondConnection, testDialect, type TestDatabase } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { Receiver } from './receiver.js';
import { deliveries, emitEvents, runDue, subscribed, until, webhookMerchant } from './support.js';

type M = Awaited<ReturnType<typeof webhookMerchant>>;

const SANDBOX_ENV = { GATEWAY_MODE: 'sandbox', ADMIN_API_KEY: 'test-admin-key-0123456789abcdef0123', PASSWORD_HASH_COST: '10', LOG_LEVEL: 'silent' };

const emit = (ctx: AppContext, m: M, count: number, tag = 'n') => emitEvents(ctx, m, count, tag);

/** Nothing lost and nothing sent twice at once: restarts, dead workers, several workers. */
describe(`webhook deliveries survive restarts and crashes (${testDialect})`, () => {
  let t: TestApp;
  let m: M;
  const receiver = new Receiver();
  const cleanup: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    await receiver.start();
    receiver.received.length = 0;
    receiver.respond = () => 200;
    t = await testApp();
    m = await webhookMerchant(t);
    await subscribed(t, m, receiver.url('/hooks'));
  });
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
    await t.close();
    await receiver.stop();
  });

  const ids = () => new Set(receiver.on('/hooks').map((r) => r.json.movementId as number));

  it('a restarted server delivers everything that was pending: never attempted and waiting for a retry', async () => {
    receiver.respond = () => 503;
    await emit(t.ctx, m, 10, 'failed');
    await runDue(t); // first attempts fail: retries due in about a minute
    expect(receiver.on('/hooks')).toHaveLength(10);
    await emit(t.ctx, m, 10, 'never'); // written, not yet attempted when the process "dies"

    // The new process: a fresh context and worker on the same database (the old one never runs again).
    receiver.received.length = 0;
    receiver.respond = () => 200;
    const config = loadConfig({ ...SANDBOX_ENV, WORKER_POLL_MS: '10' });
    const restarted = await createContext(config, { database: t.ctx.database, logger: createLogger('silent') });
    cleanup.push(() => closeContext(restarted, { keepDatabase: true }));
    restarted.worker.start();
    await until('the 10 never-attempted notifications', () => ids().size === 10);
    expect([...receiver.on('/hooks')].every((r) => String(r.json.nsu).startsWith('never'))).toBe(true);
    // The failed ones come with their retry time.
    const advanced = await restarted.sandboxClock!.advanceBy({ minutes: 2 });
    expect(advanced.jobsRun).toBeGreaterThanOrEqual(10);
    await until('all 20', () => ids().size === 20);
    const log = await deliveries(t, m);
    expect(log.map((d) => d.status)).toEqual(Array(20).fill('Delivered'));
  });

  it('a worker that died mid-delivery: the job is taken again when its lease ends, and delivered', async () => {
    await emit(t.ctx, m, 1);
    // The dead worker claimed it (a 1 ms lease, as if its lease had run out unrenewed) and never came back.
    const [claimed] = await t.ctx.queue.claim('dead-worker', { limit: 1, kinds: [DELIVER_JOB], leaseMs: 1 });
    expect(claimed).toBeDefined();
    await new Promise((r) => setTimeout(r, 5));
    await runDue(t);
    expect(receiver.on('/hooks')).toHaveLength(1);
    const [delivered] = await deliveries(t, m);
    expect(delivered.status).toBe('Delivered');
    const job = await t.ctx.database.db.selectFrom('jobs').select(['status', 'attempts', 'locked_by']).where('id', '=', claimed.id).executeTakeFirstOrThrow();
    expect(job).toMatchObject({ status: 'done', attempts: 2 });
    expect(job.locked_by).not.toBe('dead-worker');
  });

  it('a run that recorded its failed attempt but died before rescheduling does not send again before the retry time', async () => {
    receiver.respond = () => 500;
    await emit(t.ctx, m, 1);
    // Let the attempt run and fail, then put its job back as a dead worker would have left it.
    await runDue(t);
    const [pending] = await deliveries(t, m);
    expect(pending.attempts).toHaveLength(1);
    await t.ctx.database.db
      .updateTable('jobs')
      .set({ status: 'running', run_at: pending.createdDate, locked_by: 'dead-worker', locked_until: new Date(0).toISOString() })
      .where('kind', '=', DELIVER_JOB)
      .where('payload', '=', JSON.stringify({ id: pending.movementId }))
      .execute();
    await runDue(t);
    expect(receiver.on('/hooks')).toHaveLength(1);
    const [still] = await deliveries(t, m);
    expect(still).toMatchObject({ status: 'Pending', nextAttemptAt: pending.nextAttemptAt });
    expect(still.attempts).toHaveLength(1);
  });

  it('several workers deliver in parallel, each notification once', async () => {
    const N = 200;
    let inFlight = 0;
    let maxInFlight = 0;
    const perId = new Map<string, number>();
    receiver.respond = (r) => {
      const id = String(r.headers['webhook-id']);
      perId.set(id, (perId.get(id) ?? 0) + 1);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => inFlight--, 5);
      return { status: 200, delayMs: 5 };
    };
    await emit(t.ctx, m, N);
    // A second instance: its own pool on PostgreSQL, the same database on SQLite.
    let other: AppContext;
    if (testDialect === 'postgres') {
      const db = await secondConnection(t.ctx.database as TestDatabase);
      other = await createContext(loadConfig(SANDBOX_ENV), { database: db, logger: createLogger('silent') });
      cleanup.push(() => db.close());
    } else {
      other = await createContext(loadConfig(SANDBOX_ENV), { database: t.ctx.database, logger: createLogger('silent') });
    }
    // Its database is the first context's (SQLite) or a second pool closed below (PostgreSQL).
    cleanup.push(() => closeContext(other, { keepDatabase: true }));
    const workers = [
      new Worker(t.ctx.queue, t.ctx.handlers, t.ctx.clock, { pollMs: 5, concurrency: 16, workerId: 'instance-a' }),
      new Worker(other.queue, other.handlers, other.clock, { pollMs: 5, concurrency: 16, workerId: 'instance-b' }),
    ];
    workers.forEach((w) => w.start());
    try {
      await until(`${N} deliveries`, () => perId.size === N);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
    expect([...perId.values()].every((n) => n === 1)).toBe(true);
    expect(maxInFlight).toBeGreaterThan(1);
    const ran = await t.ctx.database.db.selectFrom('jobs').select('locked_by').where('kind', '=', DELIVER_JOB).where('status', '=', 'done').execute();
    expect(new Set(ran.map((j) => j.locked_by))).toEqual(new Set(['instance-a', 'instance-b']));
    expect((await deliveries(t, m, { status: 'Delivered' })).length).toBe(100); // one page of 100
    expect((await t.ctx.database.db.selectFrom('webhook_notifications').select('id').where('status', '=', 'Delivered').execute()).length).toBe(N);
  });
});

describe(`webhook addresses at delivery time in production (${testDialect})`, () => {
  it('refuses a host that now resolves to a non-public address (DNS rebinding): no connection is made', async () => {
    const receiver = await new Receiver().start();
    let lookups = 0;
    // Public when registered, loopback (where the receiver listens) afterwards.
    const t = await testApp({
      env: { GATEWAY_MODE: 'production', DATA_KEY: Buffer.alloc(32, 9).toString('base64'), WEBHOOK_TIMEOUT_MS: '2000' },
      resolveHost: async () => (lookups++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']),
    });
    try {
      const m = await webhookMerchant(t);
      await subscribed(t, m, `https://hooks.shop.example:${receiver.port}/hooks`);
      await emit(t.ctx, m, 1);
      expect(await t.ctx.worker.runOnce()).toBe(1);
      const [refused] = await deliveries(t, m);
      expect(refused.status).toBe('Pending');
      expect(refused.attempts).toEqual([
        expect.objectContaining({ statusCode: null, error: expect.stringMatching(/^address not allowed: .*127\.0\.0\.1/) }),
      ]);
      expect(receiver.received).toHaveLength(0);
      expect(lookups).toBeGreaterThanOrEqual(2);
    } finally {
      await t.close();
      await receiver.stop();
    }
  });

  it('does not send a payment callback to an http URL in production: Canceled, with the reason in the log', async () => {
    const t = await testApp({ env: { GATEWAY_MODE: 'production', DATA_KEY: Buffer.alloc(32, 9).toString('base64') }, resolveHost: async () => ['93.184.216.34'] });
    try {
      const m = await webhookMerchant(t);
      await t.ctx.database.db.transaction().execute((trx) =>
        recordNotifications(trx, t.ctx.queue, [], [
          { merchantId: m.merchantId, accountNumber: m.accountNumber, url: 'http://shop.example/cb', paymentId: 'p-1', status: 'Authorized', referenceTransaction: null, amount: 100, at: t.ctx.clock.now().toISOString() },
        ]),
      );
      await t.ctx.worker.runOnce();
      const [callback] = await deliveries(t, m);
      expect(callback).toMatchObject({ channel: 'callback', status: 'Canceled', attempts: [expect.objectContaining({ statusCode: null, error: 'urlCallBack must use https in production' })] });
    } finally {
      await t.close();
    }
  });
});
