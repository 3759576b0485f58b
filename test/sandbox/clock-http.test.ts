import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../support/harness.js';
import { testDialect } from '../support/database.js';

const DAY = 24 * 60 * 60 * 1000;

describe(`sandbox clock over HTTP (${testDialect})`, () => {
  let t: TestApp;
  const ran: { id: string; at: string }[] = [];
  beforeAll(async () => {
    t = await testApp();
    t.ctx.handlers.register('test.record', async (payload: { id: string }, { clock }) => {
      ran.push({ id: payload.id, at: clock.now().toISOString() });
    });
  });
  afterAll(() => t.close());

  const clock = async () => (await t.inject({ method: 'GET', url: '/sandbox/clock', headers: t.adminHeaders })).json().now as string;
  const advance = (payload: object) => t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload });

  it('requires the admin key', async () => {
    expect((await t.inject({ method: 'GET', url: '/sandbox/clock' })).statusCode).toBe(401);
    const m = await t.merchant();
    expect((await t.inject({ method: 'GET', url: '/sandbox/clock', headers: m.headers })).statusCode).toBe(401);
  });

  it('advances by days/hours/minutes and runs due jobs in time order at their due time', async () => {
    const start = Date.parse(await clock());
    const due = (ms: number) => new Date(start + ms);
    await t.ctx.database.db.transaction().execute(async (trx) => {
      await t.ctx.queue.enqueue(trx, { kind: 'test.record', payload: { id: 'second' }, runAt: due(2 * DAY) });
      await t.ctx.queue.enqueue(trx, { kind: 'test.record', payload: { id: 'first' }, runAt: due(DAY) });
      await t.ctx.queue.enqueue(trx, { kind: 'test.record', payload: { id: 'later' }, runAt: due(10 * DAY) });
    });
    const res = await advance({ days: 2, hours: 1, minutes: 30 });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Date.parse(body.now) - start).toBeGreaterThanOrEqual(2 * DAY + 90 * 60 * 1000);
    expect(Date.parse(body.now) - start).toBeLessThan(2 * DAY + 90 * 60 * 1000 + 5000);
    expect(body.jobsRun).toBeGreaterThanOrEqual(2);
    expect(ran.map((r) => r.id)).toEqual(['first', 'second']);
    expect(ran[0].at).toBe(due(DAY).toISOString());
    expect(ran[1].at).toBe(due(2 * DAY).toISOString());
    expect(Date.parse(await clock())).toBeGreaterThanOrEqual(Date.parse(body.now));
  });

  it('two concurrent "+1 day" advances over HTTP move the clock two days', async () => {
    const start = Date.parse(await clock());
    // A job due within the first day keeps the first advance busy while the second one arrives:
    // a route that computed its target before taking the clock's turn would move one day in all.
    t.ctx.handlers.register('test.slow', async () => new Promise((resolve) => setTimeout(resolve, 300)), { maxAttempts: 1 });
    await t.ctx.queue.enqueue(t.ctx.database.db, { kind: 'test.slow', payload: {}, runAt: new Date(start + 60 * 60 * 1000) });
    const first = advance({ days: 1 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const [a, b] = await Promise.all([first, advance({ days: 1 })]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    const end = Date.parse(await clock());
    expect(end - start).toBeGreaterThanOrEqual(2 * DAY);
    expect(end - start).toBeLessThan(2 * DAY + 5000);
    expect(Math.max(Date.parse(a.json().now), Date.parse(b.json().now)) - start).toBeGreaterThanOrEqual(2 * DAY);
  });

  it('advances to an absolute time with {to}', async () => {
    const now = Date.parse(await clock());
    const to = new Date(now + 10 * DAY + 1000).toISOString();
    const res = await advance({ to });
    expect(res.statusCode).toBe(200);
    expect(res.json().now).toBe(to);
    expect(ran.map((r) => r.id)).toContain('later');
  });

  it('never moves back, and refuses ambiguous or empty bodies', async () => {
    const past = await advance({ to: '2020-01-01T00:00:00Z' });
    expect(past.statusCode).toBe(400);
    expect(past.json()[0].tag).toBe('to');
    expect((await advance({})).statusCode).toBe(400);
    expect((await advance({ days: 1, to: new Date(Date.parse(await clock()) + DAY).toISOString() })).statusCode).toBe(400);
    const negative = await advance({ days: -1 });
    expect(negative.statusCode).toBe(400);
    expect(negative.json()[0].tag).toBe('days');
  });

  it('shows business time in what the APIs write (a merchant created after an advance)', async () => {
    const now = await clock();
    const created = await t.inject({ method: 'POST', url: '/admin/merchants', headers: t.adminHeaders, payload: { name: 'Future', documentNumber: '11222333000181' } });
    expect(Date.parse(created.json().createdDate)).toBeGreaterThanOrEqual(Date.parse(now));
    expect(Date.parse(created.json().createdDate) - Date.parse(now)).toBeLessThan(5000);
  });

  it('has no /sandbox routes in production mode', async () => {
    const prod = await testApp({ env: { GATEWAY_MODE: 'production', DATA_KEY: Buffer.alloc(32, 7).toString('base64') } });
    try {
      const res = await prod.inject({ method: 'GET', url: '/sandbox/clock', headers: prod.adminHeaders });
      expect(res.statusCode).toBe(404);
      expect(res.json()[0].tag).toBe('not_found');
      expect(prod.ctx.clock.virtual).toBe(false);
    } finally {
      await prod.close();
    }
  });
});

describe(`sandbox clock and WORKER_CONCURRENCY (${testDialect})`, () => {
  it('an advance runs as many independent jobs at once as the worker would (WORKER_CONCURRENCY)', async () => {
    for (const [env, expected] of [[{}, 32], [{ WORKER_CONCURRENCY: '5' }, 5]] as const) {
      const t = await testApp({ env });
      try {
        expect(t.ctx.sandboxClock!.parallel).toBe(expected);
      } finally {
        await t.close();
      }
    }
  });
});
