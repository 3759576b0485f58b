import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { Receiver } from './receiver.js';
import { advance, deliveries, deliveriesRaw, emitEvents, runDue, subscribed, WEBHOOKS, webhookMerchant } from './support.js';

type M = Awaited<ReturnType<typeof webhookMerchant>>;
const HOUR = 3_600_000;

/**
 * The delivery engine's retry rules, driven by the sandbox clock against a real receiver.
 * Events are written as the producers write them (recordNotifications in a transaction), so
 * each test controls exactly how many notifications exist.
 */
describe(`webhook retries, timeouts and exhaustion (${testDialect})`, () => {
  let t: TestApp;
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.start();
    t = await testApp({ env: { WEBHOOK_TIMEOUT_MS: '300' } });
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.respond = () => 200;
  });

  /** A merchant subscribed to the receiver, with one fresh TransactionStatus event. */
  async function oneEvent(): Promise<{ m: M; movementId: number }> {
    const m = await webhookMerchant(t);
    await subscribed(t, m, receiver.url(`/hooks/${m.accountNumber}`));
    await emit(m, 1);
    const [first] = await deliveries(t, m);
    return { m, movementId: first.movementId };
  }

  const emit = (m: M, count: number) => emitEvents(t.ctx, m, count);

  const mine = (m: M) => receiver.on(`/hooks/${m.accountNumber}`);
  const delivery = async (m: M, movementId: number) => (await deliveries(t, m)).find((d) => d.movementId === movementId);

  it('500 then 200: one retry about a minute later, once the clock gets there', async () => {
    const { m, movementId } = await oneEvent();
    let calls = 0;
    receiver.respond = () => (++calls === 1 ? 500 : 200);
    await runDue(t);
    const failed = await delivery(m, movementId);
    expect(failed.status).toBe('Pending');
    expect(failed.attempts.map((a: any) => a.statusCode)).toEqual([500]);
    const wait = Date.parse(failed.nextAttemptAt) - Date.parse(failed.attempts[0].at);
    expect(wait).toBeGreaterThanOrEqual(48_000);
    expect(wait).toBeLessThanOrEqual(60_000);
    // Nothing more happens until business time reaches the retry.
    await runDue(t);
    expect(mine(m)).toHaveLength(1);
    await advance(t, { minutes: 2 });
    const done = await delivery(m, movementId);
    expect(done.status).toBe('Delivered');
    expect(done.attempts.map((a: any) => a.statusCode)).toEqual([500, 200]);
    expect(done.attempts[1].at).toBe(failed.nextAttemptAt);
    expect(mine(m)).toHaveLength(2);
    // The same message both times: same id, same bytes.
    expect(mine(m)[1].headers['webhook-id']).toBe(mine(m)[0].headers['webhook-id']);
    expect(mine(m)[1].body).toBe(mine(m)[0].body);
  });

  it('400: rejected by the receiver and never retried', async () => {
    const { m, movementId } = await oneEvent();
    receiver.respond = () => 400;
    await runDue(t);
    await advance(t, { hours: 5 });
    expect(mine(m)).toHaveLength(1);
    const rejected = await delivery(m, movementId);
    expect(rejected).toMatchObject({ status: 'Rejected', nextAttemptAt: null });
    expect(rejected.attempts).toEqual([expect.objectContaining({ statusCode: 400, error: null })]);
  });

  it.each([401, 404, 410, 429, 503])('%i is retried like any failure', async (status) => {
    const { m, movementId } = await oneEvent();
    receiver.respond = () => status;
    await runDue(t);
    expect((await delivery(m, movementId)).status).toBe('Pending');
  });

  it('a receiver slower than the timeout: the attempt ends with a timeout error and is retried', async () => {
    const { m, movementId } = await oneEvent();
    receiver.respond = () => ({ status: 200, delayMs: 2_000 });
    await runDue(t);
    const slow = await delivery(m, movementId);
    expect(slow.status).toBe('Pending');
    expect(slow.attempts).toEqual([expect.objectContaining({ statusCode: null, error: 'no answer within 300 ms' })]);
    expect(slow.attempts[0].durationMs).toBeGreaterThanOrEqual(290);
    receiver.respond = () => 200;
    await advance(t, { minutes: 2 });
    expect((await delivery(m, movementId)).status).toBe('Delivered');
  });

  it('a refused connection is an error attempt, retried', async () => {
    const m = await webhookMerchant(t);
    const closed = new Receiver();
    await closed.start();
    const url = closed.url('/hooks');
    await closed.stop();
    await subscribed(t, m, url);
    await emit(m, 1);
    await runDue(t);
    const [refused] = await deliveries(t, m);
    expect(refused.status).toBe('Pending');
    expect(refused.attempts).toEqual([expect.objectContaining({ statusCode: null, error: 'connection refused' })]);
  });

  it('gives up after 72 hours of failures: Exhausted, last attempt at the 72nd hour, intervals growing from a minute to hours', async () => {
    const { m, movementId } = await oneEvent();
    receiver.respond = () => 503;
    await runDue(t);
    const created = Date.parse((await delivery(m, movementId)).createdDate);
    await advance(t, { hours: 71 });
    const before = await delivery(m, movementId);
    expect(before.status).toBe('Pending');
    await advance(t, { hours: 2 });
    const exhausted = await delivery(m, movementId);
    expect(exhausted).toMatchObject({ status: 'Exhausted', nextAttemptAt: null });
    const times = exhausted.attempts.map((a: any) => Date.parse(a.at));
    expect(times[0]).toBeGreaterThanOrEqual(created);
    expect(times.at(-1)).toBe(created + 72 * HOUR);
    const gaps = times.slice(1).map((at: number, i: number) => at - times[i]);
    expect(gaps[0]).toBeGreaterThanOrEqual(48_000);
    expect(gaps[0]).toBeLessThanOrEqual(60_000);
    // Growing to hours: the longest wait is between 2.4 and 3 hours.
    expect(Math.max(...gaps)).toBeGreaterThan(2.4 * HOUR);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(3 * HOUR);
    expect(exhausted.attempts.length).toBe(mine(m).length);
    expect(exhausted.attempts.length).toBeGreaterThan(20);
    expect(exhausted.attempts.length).toBeLessThan(40);
    // Nothing after exhaustion.
    await advance(t, { hours: 24 });
    expect(mine(m)).toHaveLength(exhausted.attempts.length);
  });

  it('a receiver down for hours gets everything when it comes back', async () => {
    const m = await webhookMerchant(t);
    await subscribed(t, m, receiver.url(`/hooks/${m.accountNumber}`));
    const comesBack = t.ctx.clock.now().getTime() + 5 * HOUR;
    receiver.respond = () => (t.ctx.clock.now().getTime() < comesBack ? 503 : 200);
    await emit(m, 10);
    await advance(t, { hours: 4 });
    expect((await deliveries(t, m)).every((d) => d.status === 'Pending')).toBe(true);
    await advance(t, { hours: 4 });
    const log = await deliveries(t, m);
    expect(log.map((d) => d.status)).toEqual(Array(10).fill('Delivered'));
    const delivered = new Set(mine(m).filter((r) => t.ctx.clock.now()).map((r) => r.json.movementId));
    expect(delivered.size).toBe(10);
  });

  it('DELETE stops deliveries: pending ones end Canceled and nothing more is sent', async () => {
    const { m, movementId } = await oneEvent();
    receiver.respond = () => 500;
    await runDue(t);
    const res = await t.inject({ method: 'DELETE', url: `${WEBHOOKS}/subscriptions?accountNumber=${m.accountNumber}`, headers: m.integration });
    expect(res.statusCode).toBe(200);
    await advance(t, { hours: 6 });
    expect(mine(m)).toHaveLength(1);
    expect(await delivery(m, movementId)).toMatchObject({ status: 'Canceled', nextAttemptAt: null });
    // New events of the account make no notifications.
    await emit(m, 1);
    await runDue(t);
    expect(await deliveries(t, m)).toHaveLength(1);
  });

  it('a replaced URL takes the pending notifications along', async () => {
    const { m, movementId } = await oneEvent();
    receiver.respond = (r) => (r.path.endsWith('/new') ? 200 : 500);
    await runDue(t);
    await subscribed(t, m, receiver.url(`/hooks/${m.accountNumber}/new`));
    await advance(t, { minutes: 2 });
    const done = await delivery(m, movementId);
    expect(done.status).toBe('Delivered');
    expect(done.attempts.map((a: any) => [a.url, a.statusCode])).toEqual([
      [receiver.url(`/hooks/${m.accountNumber}`), 500],
      [receiver.url(`/hooks/${m.accountNumber}/new`), 200],
    ]);
  });

  it('redeliver sends one notification again: 202, Pending, the same message', async () => {
    const { m, movementId } = await oneEvent();
    await runDue(t);
    expect((await delivery(m, movementId)).status).toBe('Delivered');
    const redeliver = (account: number, id: number) =>
      t.inject({ method: 'POST', url: `${WEBHOOKS}/deliveries/${id}/redeliver?accountNumber=${account}`, headers: m.integration });
    const res = await redeliver(m.accountNumber, movementId);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ movementId, status: 'Pending', attempts: [expect.objectContaining({ statusCode: 200 })] });
    await runDue(t);
    expect(mine(m)).toHaveLength(2);
    expect(mine(m)[1].body).toBe(mine(m)[0].body);
    expect(mine(m)[1].headers['webhook-id']).toBe(mine(m)[0].headers['webhook-id']);
    expect((await delivery(m, movementId)).attempts).toHaveLength(2);
    // An Exhausted or Rejected one too; an unknown or foreign movementId is 404, a malformed one 400.
    expect((await redeliver(m.accountNumber, 999_999_999)).statusCode).toBe(404);
    const stranger = await oneEvent();
    expect((await redeliver(m.accountNumber, stranger.movementId)).statusCode).toBe(404);
    expect((await t.inject({ method: 'POST', url: `${WEBHOOKS}/deliveries/abc/redeliver?accountNumber=${m.accountNumber}`, headers: m.integration })).statusCode).toBe(400);
    // Without a URL there is nowhere to send it.
    await t.inject({ method: 'DELETE', url: `${WEBHOOKS}/subscriptions?accountNumber=${m.accountNumber}`, headers: m.integration });
    expect((await redeliver(m.accountNumber, movementId)).statusCode).toBe(409);
  });

  it('redeliver while an attempt is in flight is refused rather than sending twice at once', async () => {
    await runDue(t); // earlier tests' pending jobs out of the way
    const { m, movementId } = await oneEvent();
    // A worker holds the job (its lease running): the attempt is in flight.
    const [claimed] = await t.ctx.queue.claim('busy-worker', { limit: 1, kinds: ['webhook.deliver'] });
    expect(claimed.payload).toEqual({ id: movementId });
    const res = await t.inject({ method: 'POST', url: `${WEBHOOKS}/deliveries/${movementId}/redeliver?accountNumber=${m.accountNumber}`, headers: m.integration });
    expect(res.statusCode).toBe(409);
    await t.ctx.queue.complete(claimed, 'busy-worker');
  });

  it('lists deliveries with status and date filters and paging', async () => {
    const m = await webhookMerchant(t);
    await subscribed(t, m, receiver.url(`/hooks/${m.accountNumber}`));
    let n = 0;
    receiver.respond = () => (n++ % 2 === 0 ? 200 : 400);
    await emit(m, 4);
    await runDue(t);
    expect((await deliveries(t, m, { status: 'Delivered' })).length + (await deliveries(t, m, { status: 'Rejected' })).length).toBe(4);
    const today = t.ctx.clock.now().toISOString().slice(0, 10);
    expect(await deliveries(t, m, { startDate: today, endDate: today })).toHaveLength(4);
    expect(await deliveries(t, m, { startDate: '2020-01-01', endDate: '2020-01-31' })).toHaveLength(0);
    const page = await deliveriesRaw(t, m, { limit: 3, page: 2, orderBy: 'movementId:asc' });
    expect(page.json()).toMatchObject({ page: 2, limit: 3, total: 4, items: [expect.any(Object)] });
    const all = await deliveries(t, m);
    expect(page.json().items[0].movementId).toBe(all[3].movementId);
    const newestFirst = (await deliveriesRaw(t, m)).json().items.map((d: any) => d.movementId);
    expect(newestFirst).toEqual([...newestFirst].sort((a, b) => b - a));
    const bads: Record<string, string | number>[] = [{ startDate: today, endDate: '2020-01-01' }, { status: 'Lost' }, { orderBy: 'url' }, { limit: 101 }, { startDate: '2026-13-01' }];
    for (const bad of bads) {
      const res = await deliveriesRaw(t, m, bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json()[0]).toEqual({ tag: expect.any(String), description: expect.any(String) });
    }
    const other = await webhookMerchant(t);
    expect((await deliveriesRaw(t, other, { accountNumber: m.accountNumber })).statusCode).toBe(403);
  });
});
