import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcquirerUnavailable, type Acquirer } from '../../src/acquirer/types.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { PaymentService } from '../../src/modules/payments/service.js';
import { QueueReader } from '../../src/observability/backlog.js';
import { testDialect } from '../support/database.js';
import { paymentBody, tokenize, vault } from '../support/cards.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { sample } from '../support/prometheus.js';

const PAY = '/gateway/v1/payments';
const PRODUCTION = { GATEWAY_MODE: 'production', DATA_KEY: Buffer.alloc(32, 5).toString('base64') };
const TOKEN = 'metrics-token-0123456789abcdef';

async function liftVelocity(t: TestApp, m: TestMerchant): Promise<void> {
  const res = await t.inject({
    method: 'PUT',
    url: `/admin/merchants/${m.merchantId}/antifraud`,
    headers: t.adminHeaders,
    payload: { velocity: { maxPerCard: 100000, maxPerDocument: 100000, maxPerIp: 100000 } },
  });
  expect(res.statusCode).toBe(200);
}

const scrape = async (t: TestApp, headers: Record<string, string> = {}) => {
  const res = await t.inject({ method: 'GET', url: '/metrics', headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
};

describe(`business metrics (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    await liftVelocity(t, m);
  });
  afterAll(() => t.close());

  const pay = async (card: string, overrides: Record<string, unknown> = {}) => {
    const numberToken = await tokenize(t, m, card);
    return t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ numberToken }, overrides) });
  };
  const payments = (text: string, status: string, code: string) => sample(text, 'gateway_payments_total', { status, return_code: code }) ?? 0;
  const calls = (text: string, labels: Record<string, string>) => sample(text, 'gateway_acquirer_request_duration_seconds_count', labels) ?? 0;
  const failures = (text: string, labels: Record<string, string>) => sample(text, 'gateway_acquirer_failures_total', labels) ?? 0;

  it('counts an approved and a declined payment by status and returnCode, and times the acquirer calls; a decline is no acquirer failure', async () => {
    const before = await scrape(t);
    expect((await pay('4111111111111111')).json().status).toBe('Authorized');
    expect((await pay('4000000000009995')).json()).toMatchObject({ status: 'Denied', returnCode: '51' });
    const after = await scrape(t);
    expect(payments(after, 'Authorized', '00') - payments(before, 'Authorized', '00')).toBe(1);
    expect(payments(after, 'Denied', '51') - payments(before, 'Denied', '51')).toBe(1);
    const sandbox = { acquirer: 'sandbox', operation: 'authorize' };
    expect(calls(after, { ...sandbox, outcome: 'approved' }) - calls(before, { ...sandbox, outcome: 'approved' })).toBe(1);
    expect(calls(after, { ...sandbox, outcome: 'declined' }) - calls(before, { ...sandbox, outcome: 'declined' })).toBe(1);
    expect(sample(after, 'gateway_acquirer_request_duration_seconds_sum', { ...sandbox, outcome: 'approved' })).toBeGreaterThan(0);
    expect(failures(after, sandbox)).toBe(failures(before, sandbox));
    expect(after).toContain('# TYPE gateway_acquirer_request_duration_seconds histogram');
  });

  it('an acquirer failure (96) is counted as a refused call and a Denied 96 payment', async () => {
    const before = await scrape(t);
    expect((await pay('4000000000000119')).statusCode).toBe(502);
    const after = await scrape(t);
    expect(payments(after, 'Denied', '96') - payments(before, 'Denied', '96')).toBe(1);
    const refused = { acquirer: 'sandbox', operation: 'authorize', kind: 'refused' };
    expect(failures(after, refused) - failures(before, refused)).toBe(1);
  });

  it('an anti-fraud rejection is counted as Denied 59 and never reaches the acquirer', async () => {
    const blocked = await t.inject({ method: 'POST', url: '/admin/antifraud/blocklist', headers: t.adminHeaders, payload: { kind: 'email', value: 'fraud-metrics@example.com' } });
    expect(blocked.statusCode).toBe(201);
    const before = await scrape(t);
    const res = await pay('4111111111111111', { customer: { documentType: 'cpf', documentNumber: '52998224725', email: 'fraud-metrics@example.com', ipAddress: '198.51.100.7', country: 'BR' } });
    expect(res.json()).toMatchObject({ status: 'Denied', returnCode: '59' });
    const after = await scrape(t);
    expect(payments(after, 'Denied', '59') - payments(before, 'Denied', '59')).toBe(1);
    expect(calls(after, { operation: 'authorize' })).toBe(calls(before, { operation: 'authorize' }));
  });

  it('a payment left Pending is counted once, when its recovery settles it', async () => {
    const sandbox = t.ctx.acquirer.sandbox;
    // The sale reaches the sandbox but its answer is lost, and the at-once lookups fail too.
    const lossy: Acquirer = {
      authorize: async (request, context) => {
        await sandbox.authorize(request, context);
        throw new AcquirerUnavailable(true, 'socket hang up');
      },
      cancel: (request, context) => sandbox.cancel(request, context),
      refund: (request, context) => sandbox.refund(request, context),
      lookupRefund: (request, context) => sandbox.lookupRefund(request, context),
      lookup: async () => {
        throw new AcquirerUnavailable(true, 'query down');
      },
      settleWindowMs: async () => 0,
    };
    const before = await scrape(t);
    const outcome = await new PaymentService(t.ctx, lossy).create(m, paymentBody({ vaultId: await vault(t, m, '4111111111111111') }) as never);
    expect(outcome.kind).toMatch(/^(unknown|failed)$/); // a 502
    expect(payments(await scrape(t), 'Authorized', '00')).toBe(payments(before, 'Authorized', '00'));
    const advance = () => t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes: 1 } });
    expect((await advance()).statusCode).toBe(200);
    expect((await advance()).statusCode).toBe(200);
    const after = await scrape(t);
    expect(payments(after, 'Authorized', '00') - payments(before, 'Authorized', '00')).toBe(1);
    // The recovery asked the acquirer through the router: a lookup that found the sale.
    expect(calls(after, { acquirer: 'sandbox', operation: 'lookup', outcome: 'found' })).toBeGreaterThan(calls(before, { acquirer: 'sandbox', operation: 'lookup', outcome: 'found' }));
  });

  it('an acquirer that cannot be reached is counted as unreachable, per connector', async () => {
    const own = await t.merchant();
    await liftVelocity(t, own);
    const put = await t.inject({
      method: 'PUT',
      url: `/admin/merchants/${own.merchantId}/acquirer`,
      headers: t.adminHeaders,
      payload: { provider: 'cielo', merchantId: 'm', merchantKey: 'k', apiUrl: 'http://127.0.0.1:9', queryUrl: 'http://127.0.0.1:9' },
    });
    expect(put.statusCode, put.body).toBe(200);
    const before = await scrape(t);
    const numberToken = await tokenize(t, own, '4111111111111111');
    const res = await t.inject({ method: 'POST', url: PAY, headers: own.headers, payload: paymentBody({ numberToken }) });
    expect(res.statusCode).toBe(502);
    const after = await scrape(t);
    const unreachable = { acquirer: 'cielo', operation: 'authorize', kind: 'unreachable' };
    expect(failures(after, unreachable) - failures(before, unreachable)).toBe(1);
    expect(calls(after, { acquirer: 'cielo', operation: 'authorize', outcome: 'unreachable' }) - calls(before, { acquirer: 'cielo', operation: 'authorize', outcome: 'unreachable' })).toBe(1);
  });

  it('counts failed job attempts by kind and outcome (retry, then failed) and logs each with its ids', async () => {
    t.ctx.handlers.register('test.boom', async () => {
      throw new Error('boom');
    }, { maxAttempts: 2 });
    const id = await t.ctx.queue.enqueue(t.ctx.database.db, { kind: 'test.boom', payload: {} });
    const soon = () => new Date(t.ctx.clock.now().getTime() + 60_000);
    expect(await t.ctx.worker.runOnce(soon())).toBeGreaterThanOrEqual(1);
    let text = await scrape(t);
    expect(sample(text, 'gateway_job_failures_total', { kind: 'test.boom', outcome: 'retry' })).toBe(1);
    expect(sample(text, 'gateway_job_failures_total', { kind: 'test.boom', outcome: 'failed' })).toBeUndefined();
    await t.ctx.worker.runOnce(soon());
    text = await scrape(t);
    expect(sample(text, 'gateway_job_failures_total', { kind: 'test.boom', outcome: 'failed' })).toBe(1);
    const lines = t.logs.lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'job failed' && l.jobId === id);
    expect(lines).toEqual([
      expect.objectContaining({ event: 'job.failed', kind: 'test.boom', attempt: 1, outcome: 'retry', error: 'boom' }),
      expect.objectContaining({ event: 'job.failed', kind: 'test.boom', attempt: 2, outcome: 'failed', error: 'boom' }),
    ]);
  });

  it('counts lease expiries (retaken, or failed on the last attempt) and takeovers', async () => {
    const { queue, database } = t.ctx;
    const wait = () => new Promise((resolve) => setTimeout(resolve, 20));
    await queue.enqueue(database.db, { kind: 'test.slow', payload: {}, maxAttempts: 3 });
    await queue.enqueue(database.db, { kind: 'test.last', payload: {}, maxAttempts: 1 });
    expect(await queue.claim('dead-worker', { limit: 2, leaseMs: 1, kinds: ['test.slow', 'test.last'] })).toHaveLength(2);
    await wait();
    const retaken = await queue.claim('live-worker', { limit: 5, leaseMs: 60_000, kinds: ['test.slow', 'test.last'] });
    expect(retaken.map((j) => j.kind)).toEqual(['test.slow']);
    const text = await scrape(t);
    expect(sample(text, 'gateway_job_lease_expiries_total', { kind: 'test.slow', outcome: 'retaken' })).toBe(1);
    expect(sample(text, 'gateway_job_lease_expiries_total', { kind: 'test.last', outcome: 'failed' })).toBe(1);
    expect(sample(text, 'gateway_job_failures_total', { kind: 'test.last', outcome: 'failed' })).toBe(1);
    expect(t.logs.lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'job failed' && l.kind === 'test.last')).toMatchObject({ event: 'job.failed', attempt: 1, outcome: 'failed' });

    // A restarted instance releases what its previous process held (on PostgreSQL: by instance prefix).
    const before = sample(text, 'gateway_job_takeovers_total') ?? 0;
    await queue.enqueue(database.db, { kind: 'test.held', payload: {} });
    expect(await queue.claim('inst-a/old-process', { limit: 1, leaseMs: 60_000, kinds: ['test.held'] })).toHaveLength(1);
    const released = await queue.releaseAbandoned({ instanceId: 'inst-a', workerId: 'inst-a/new-process' });
    expect(released).toBeGreaterThanOrEqual(1);
    expect((sample(await scrape(t), 'gateway_job_takeovers_total') ?? 0) - before).toBe(released);
  });

  it('reports the database pool', async () => {
    const text = await scrape(t);
    if (testDialect === 'postgres') {
      expect(sample(text, 'gateway_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'gateway_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'gateway_db_pool_connections', { state: 'busy' })).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'gateway_db_pool_connections', { state: 'max' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'gateway_db_pool_connections', { state: 'waiting' })).toBe(0);
      expect(sample(text, 'gateway_db_connections_closed_total')).toBeGreaterThanOrEqual(0);
    } else {
      expect(sample(text, 'gateway_db_pool_connections', { state: 'total' })).toBe(1);
      expect(sample(text, 'gateway_db_pool_connections', { state: 'waiting' })).toBeUndefined();
    }
  });
});

describe(`job queue and webhook backlog at scrape time (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  it('reports depth, lateness and age by kind, and the webhook backlog, from one cached reading', async () => {
    const { queue, database, clock } = t.ctx;
    const now = clock.now().getTime();
    for (let i = 0; i < 3; i++) await queue.enqueue(database.db, { kind: 'test.waiting', payload: { i }, runAt: new Date(now - 120_000 + i) });
    await queue.enqueue(database.db, { kind: 'test.waiting', payload: { later: true }, runAt: new Date(now + 3_600_000) });
    // A payment with a urlCallBack: its notification waits for delivery (no worker runs here).
    const m = await t.merchant();
    const numberToken = await tokenize(t, m, '4111111111111111');
    const paid = await t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ numberToken }, { urlCallBack: 'https://merchant.example.com/cb' }) });
    expect(paid.json().status).toBe('Authorized');

    const text = await scrape(t);
    expect(sample(text, 'gateway_jobs_queue_depth', { kind: 'test.waiting', status: 'pending' })).toBe(4);
    expect(sample(text, 'gateway_jobs_queue_depth', { kind: 'test.waiting', status: 'running' })).toBeUndefined();
    const late = sample(text, 'gateway_jobs_oldest_due_seconds', { kind: 'test.waiting' })!;
    expect(late).toBeGreaterThanOrEqual(119);
    expect(late).toBeLessThan(200);
    expect(sample(text, 'gateway_webhook_backlog')).toBe(1);
    expect(sample(text, 'gateway_jobs_queue_depth', { kind: 'webhook.deliver', status: 'pending' })).toBe(1);
    // Registered kinds with nothing waiting are there, at 0: an alert never sees them vanish.
    expect(sample(text, 'gateway_jobs_queue_depth', { kind: 'billing.charge', status: 'pending' })).toBe(0);
    expect(sample(text, 'gateway_jobs_oldest_due_seconds', { kind: 'billing.charge' })).toBe(0);
    // The approved payment left Pending with its answer, and the relay has made its notification.
    expect(sample(text, 'gateway_payments_pending_oldest_seconds')).toBe(0);
    expect(sample(text, 'gateway_payment_relay_backlog')).toBe(0);
    expect(sample(text, 'gateway_jobs_oldest_age_seconds', { kind: 'test.waiting' })).toBeLessThan(60);

    // Within the cache window a second scrape reads nothing new.
    await queue.enqueue(database.db, { kind: 'test.waiting', payload: { more: true }, runAt: new Date(now - 1000) });
    expect(sample(await scrape(t), 'gateway_jobs_queue_depth', { kind: 'test.waiting', status: 'pending' })).toBe(4);
    // A reader without a cache sees it (the gauges read through one like it).
    const groups = await new QueueReader(database, 0).read();
    expect(groups?.find((g) => g.kind === 'test.waiting' && g.status === 'pending')?.jobs).toBe(5);
  });

  it('reports the oldest payment still Pending and the events the relay has not made effective', async () => {
    const fresh = await testApp();
    try {
      const m = await fresh.merchant();
      const vaultId = await vault(fresh, m, '4111111111111111');
      // The app's own inject: the relay is not drained after it, as in production before its next pass.
      for (let i = 0; i < 2; i++) expect((await fresh.app.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ vaultId }) })).statusCode).toBe(201);
      const sandbox = fresh.ctx.acquirer.sandbox;
      const silent: Acquirer = {
        authorize: async () => {
          throw new AcquirerUnavailable(true, 'socket hang up');
        },
        cancel: (request, context) => sandbox.cancel(request, context),
        refund: (request, context) => sandbox.refund(request, context),
        lookupRefund: (request, context) => sandbox.lookupRefund(request, context),
        lookup: async () => {
          throw new AcquirerUnavailable(true, 'down');
        },
        settleWindowMs: async () => 0,
      };
      expect((await new PaymentService(fresh.ctx, silent).create(m, paymentBody({ vaultId }) as never)).kind).toMatch(/^(unknown|failed)$/); // a 502
      const pending = await fresh.ctx.database.db.selectFrom('payments').select('created_at').where('status', '=', 'Pending').executeTakeFirstOrThrow();
      expect(await fresh.ctx.payments.backlog()).toEqual({ oldestPendingAt: pending.created_at, unrelayed: 2 });
      const text = await scrape(fresh);
      expect(sample(text, 'gateway_payment_relay_backlog')).toBe(2);
      expect(sample(text, 'gateway_payments_pending_oldest_seconds')).toBeGreaterThanOrEqual(0);
      await fresh.ctx.payments.settleBackground();
      expect((await fresh.ctx.payments.backlog()).unrelayed).toBe(0);
    } finally {
      await fresh.close();
    }
  });

  it('shares one read between scrapes within the cache window', async () => {
    const reader = new QueueReader(t.ctx.database, 60_000);
    const [a, b] = await Promise.all([reader.read(), reader.read()]);
    expect(a).toBe(b);
    expect(await reader.read()).toBe(a);
  });

  it('leaves the job series out (and answers) when the database cannot be read', async () => {
    const broken = { ...t.ctx.database, db: { selectFrom: () => ({ select: () => { throw new Error('database down'); } }) } } as never;
    const warnings: string[] = [];
    expect(await new QueueReader(broken, 0, { warn: (_o, msg) => warnings.push(msg ?? '') }).read()).toBeNull();
    expect(warnings).toHaveLength(1);
  });
});

describe(`who may read /metrics and /docs (${testDialect})`, () => {
  it('with METRICS_TOKEN: Bearer <token> or 401 with the error array', async () => {
    const t = await testApp({ env: { METRICS_TOKEN: TOKEN } });
    try {
      for (const authorization of [undefined, 'Bearer wrong-token-0123456789abcdef', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
        const res = await t.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
        expect(res.statusCode, authorization).toBe(401);
        expect(res.json()).toEqual([{ tag: 'unauthorized', description: expect.stringContaining('METRICS_TOKEN') }]);
        expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      }
      const ok = await scrape(t, { authorization: `Bearer ${TOKEN}` });
      expect(ok).toContain('gateway_jobs_queue_depth');
      expect(t.logs.text).not.toContain(TOKEN);
    } finally {
      await t.close();
    }
  });

  it('production: no /metrics without METRICS_TOKEN (404, and a warning at start), no /docs or /openapi.json by default', async () => {
    const t = await testApp({ env: PRODUCTION });
    try {
      const metrics = await t.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.statusCode).toBe(404);
      expect(metrics.json()).toEqual([{ tag: 'metrics_disabled', description: expect.stringContaining('METRICS_TOKEN') }]);
      expect(t.logs.text).toContain('/metrics is not served');
      for (const url of ['/docs', '/docs/', '/docs/static/index.html', '/openapi.json']) {
        const res = await t.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(404);
        expect(res.json()[0].tag).toBe('not_found');
      }
      // The API itself is unaffected.
      expect((await t.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('production with METRICS_TOKEN and DOCS_PUBLIC=true serves both', async () => {
    const t = await testApp({ env: { ...PRODUCTION, METRICS_TOKEN: TOKEN, DOCS_PUBLIC: 'true' } });
    try {
      expect((await t.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
      expect(await scrape(t, { authorization: `Bearer ${TOKEN}` })).toContain('gateway_payments_total');
      expect((await t.inject({ method: 'GET', url: '/openapi.json' })).json().openapi).toBe('3.1.0');
      expect((await t.inject({ method: 'GET', url: '/docs/' })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('sandbox with DOCS_PUBLIC=false hides the docs', async () => {
    const t = await testApp({ env: { DOCS_PUBLIC: 'false' } });
    try {
      expect((await t.inject({ method: 'GET', url: '/openapi.json' })).statusCode).toBe(404);
      expect((await t.inject({ method: 'GET', url: '/docs/' })).statusCode).toBe(404);
      expect((await t.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('validates METRICS_TOKEN and DOCS_PUBLIC, never echoing the token', () => {
    expect(loadConfig({}).docsPublic).toBe(true);
    expect(loadConfig({ GATEWAY_MODE: 'production' }).docsPublic).toBe(false);
    expect(loadConfig({ GATEWAY_MODE: 'production', DOCS_PUBLIC: 'TRUE' }).docsPublic).toBe(true);
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: TOKEN }).metricsToken).toBe(TOKEN);
    expect(() => loadConfig({ DOCS_PUBLIC: 'maybe' })).toThrow(ConfigError);
    for (const bad of ['short-secret', 'has spaces in the middle of it', `${'x'.repeat(20)}\u00e9`]) {
      let error: unknown;
      try {
        loadConfig({ METRICS_TOKEN: bad });
      } catch (e) {
        error = e;
      }
      expect(error, bad).toBeInstanceOf(ConfigError);
      expect((error as Error).message).not.toContain(bad);
    }
  });
});
