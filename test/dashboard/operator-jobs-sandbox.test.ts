import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { DashboardClient } from './support.js';

describe(`operator dashboard: job queue health and the sandbox (${testDialect})`, () => {
  let t: TestApp;
  let op: DashboardClient;
  let m: TestMerchant;
  const clock = async () => (await t.inject({ method: 'GET', url: '/sandbox/clock', headers: t.adminHeaders })).json().now as string;

  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    t.ctx.handlers.register('test.explode', async () => {
      throw new Error('boom: the test handler failed');
    }, { maxAttempts: 1 });
    t.ctx.handlers.register('test.waiting', async () => {});
    op = new DashboardClient(t);
    await op.loginOperator();
  });
  afterAll(() => t?.close());

  it('shows per kind the backlog, running, the oldest due job, failures, and the last failed jobs with their error', async () => {
    await t.ctx.queue.enqueue(t.ctx.database.db, { kind: 'test.explode', payload: {} });
    await t.ctx.sandboxClock!.advanceBy({ minutes: 1 });
    // Due 90 s ago, not run yet (no worker runs in the tests).
    await t.ctx.queue.enqueue(t.ctx.database.db, { kind: 'test.waiting', payload: {}, runAt: new Date(t.ctx.clock.now().getTime() - 90_000) });
    await t.ctx.queue.enqueue(t.ctx.database.db, { kind: 'test.waiting', payload: {}, runAt: new Date(t.ctx.clock.now().getTime() + 3_600_000) });
    const page = await op.get('/dashboard/operator/jobs');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Saúde das filas');
    const row = (kind: string) => new RegExp(`<tr><th scope="row"><code>${kind.replace('.', '\\.')}</code></th>(.*?)</tr>`, 's').exec(page.body)![1];
    const cells = (kind: string) => [...row(kind).matchAll(/<td class="num">(.*?)<\/td>/gs)].map((c) => c[1].replace(/<[^>]+>/g, '').trim());
    // pending, running, oldest due, failed jobs, failed attempts
    expect(cells('test.waiting').slice(0, 2)).toEqual(['2', '0']);
    expect(cells('test.waiting')[2]).toMatch(/^1 min \d+ s$/);
    expect(cells('test.explode')).toEqual(['0', '0', '-', '1', '1']);
    // Every registered kind is listed, idle ones at 0.
    expect(cells('refund.recover')).toEqual(['0', '0', '-', '0', '0']);
    expect(page.body).toContain('boom: the test handler failed');
    expect(page.body).toContain('1/1');
  });

  it('the sandbox page shows the clock; advancing it through the form moves the clock (seen through the API); bad input is a 400', async () => {
    const page = await op.get('/dashboard/operator/sandbox');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Hora de negócio');
    expect(page.body).toContain(m.merchantId);
    expect(page.body).toContain('payment.authorized');
    const before = Date.parse(await clock());
    const moved = await op.post('/dashboard/operator/sandbox/clock', { days: '2', hours: '3', minutes: '' });
    expect(moved.statusCode).toBe(303);
    expect(moved.headers.location).toMatch(/^\/dashboard\/operator\/sandbox\?done=advanced&now=.+&jobs=\d+$/);
    const after = Date.parse(await clock());
    expect(after - before).toBeGreaterThanOrEqual((2 * 24 + 3) * 3_600_000);
    expect(after - before).toBeLessThan((2 * 24 + 3) * 3_600_000 + 60_000);
    expect((await op.get(moved.headers.location as string)).body).toContain('Relógio avançado');

    const bads: Record<string, string>[] = [{ days: '', hours: '', minutes: '' }, { days: '-1' }, { days: '3661' }, { hours: 'x' }, { days: '3660', hours: '24' }];
    for (const fields of bads) {
      const bad = await op.post('/dashboard/operator/sandbox/clock', fields);
      expect(bad.statusCode, JSON.stringify(fields)).toBe(400);
      expect(bad.body).toContain('class="alert"');
    }
    expect(Math.abs(Date.parse(await clock()) - after)).toBeLessThan(60_000);
    // Without the token: refused, the clock stays.
    expect((await op.post('/dashboard/operator/sandbox/clock', { days: '5' }, { csrf: null })).statusCode).toBe(403);
    expect(Math.abs(Date.parse(await clock()) - after)).toBeLessThan(60_000);
  });

  it('triggers every `gateway trigger` event through the services, as the merchant', async () => {
    const page = await op.get('/dashboard/operator/sandbox');
    const events = [...page.body.matchAll(/<option value="([a-z_]+\.[a-z_]+)">/g)].map((x) => x[1]);
    expect(events).toContain('payment.denied');
    // bank_slip.paid waits for the sandbox bank to register the slip (a worker's job): no worker runs here.
    for (const event of events.filter((e) => e !== 'bank_slip.paid')) {
      const res = await op.post('/dashboard/operator/sandbox/trigger', { merchantId: m.merchantId, event });
      expect(res.statusCode, event).toBe(303);
      expect(res.headers.location, event).toContain('done=triggered');
    }
    const authorized = await op.post('/dashboard/operator/sandbox/trigger', { merchantId: m.merchantId, event: 'payment.authorized' });
    const paymentId = /paymentId%3D([0-9a-f-]{36})/.exec(authorized.headers.location as string)![1];
    const api = await t.inject({ method: 'GET', url: `/gateway/v1/payments/${paymentId}`, headers: m.headers });
    expect(api.json().status).toBe('Authorized');
    expect((await op.get(authorized.headers.location as string)).body).toContain(`paymentId=${paymentId}`);
    expect((await op.post('/dashboard/operator/sandbox/trigger', { merchantId: m.merchantId, event: 'nothing.here' })).statusCode).toBe(400);
    expect((await op.post('/dashboard/operator/sandbox/trigger', { merchantId: 'mer_unknown0000000', event: 'payment.authorized' })).statusCode).toBe(404);
  });

  it("resets one merchant's data, then everything with the clock back to real time", async () => {
    const one = await op.post('/dashboard/operator/sandbox/reset-merchant', { merchantId: m.merchantId });
    expect(one.statusCode).toBe(303);
    expect(one.headers.location).toMatch(/done=merchantReset&removed=[1-9]\d*/);
    const all = await op.post('/dashboard/operator/sandbox/reset', {});
    expect(all.statusCode).toBe(303);
    expect(Math.abs(Date.parse(await clock()) - Date.now())).toBeLessThan(60_000);
    expect((await op.get(all.headers.location as string)).body).toContain('Sandbox reiniciado');
    // Merchants and credentials stay.
    expect((await t.inject({ method: 'GET', url: `/admin/merchants/${m.merchantId}`, headers: t.adminHeaders })).statusCode).toBe(200);
  });
});

describe(`operator dashboard outside the sandbox (${testDialect})`, () => {
  it('the sandbox page and its forms are 404 in production', async () => {
    const t = await testApp({ env: { GATEWAY_MODE: 'production', DATA_KEY: Buffer.alloc(32, 5).toString('base64') } });
    try {
      const op = new DashboardClient(t);
      await op.loginOperator();
      expect((await op.get('/dashboard/operator/jobs')).statusCode).toBe(200);
      expect((await op.get('/dashboard/operator/sandbox')).statusCode).toBe(404);
      expect((await op.post('/dashboard/operator/sandbox/clock', { days: '1' })).statusCode).toBe(404);
      expect((await op.get('/dashboard/operator/jobs')).body).not.toContain('/dashboard/operator/sandbox');
    } finally {
      await t.close();
    }
  });
});
