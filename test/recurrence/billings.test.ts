import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { vault } from '../support/cards.js';
import { addDays, clock, iso, R, recurrence } from './support.js';

describe(`recurrence billings (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let api: ReturnType<typeof recurrence>;
  let clk: ReturnType<typeof clock>;
  let vaultId: string;
  /** Billings due in 10, 20 and 30 days (Opened), created in that order. */
  let due: { id: string; expireAt: string }[];
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    api = recurrence(t, m);
    clk = clock(t);
    vaultId = await vault(t, m, '4111111111111111');
    due = [];
    for (const trialDays of [10, 20, 30]) {
      await api.subscribe(await api.plan({ name: `Trial ${trialDays}`, trialDays }), vaultId, `T${trialDays}`);
      await clk.to(addDays(clk.now(), 0.001)); // 86 s apart: distinct createdDate
      const [latest] = await api.billings('&orderBy=createdDate:desc');
      due.push({ id: latest.id, expireAt: latest.expireAt });
    }
  });
  afterAll(() => t.close());

  const list = (query: string) => api.get(`${R}/billing${query}`);
  const ids = async (query: string) => {
    const res = await list(query);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().items.map((b: { id: string }) => b.id);
  };

  it('lists the envelope with each billing\'s subscription and plan, newest first', async () => {
    const res = await list('');
    expect(res.json()).toMatchObject({ page: 1, limit: 20, total: 3 });
    expect(res.json().items.map((b: { id: string }) => b.id)).toEqual(due.map((d) => d.id).reverse());
    const [newest] = res.json().items;
    expect(newest).toMatchObject({ status: 'Opened', amount: 12.6, installment: 1, subscription: { orderNumber: 'T30', vaultId, plan: { name: 'Trial 30', trialDays: 30 } } });
    expect(newest).not.toHaveProperty('attemptsHistory');
  });

  it('takes mid = its own merchantId; another merchant is 403, a malformed one 400', async () => {
    expect(await ids(`?mid=${m.merchantId}`)).toHaveLength(3);
    const other = await t.merchant();
    const foreign = await list(`?mid=${other.merchantId}`);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()[0].tag).toBe('forbidden');
    const malformed = await list('?mid=not%20a%20merchant');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()[0].tag).toBe('query.mid');
    // Another merchant sees none of these.
    expect((await recurrence(t, other).get(`${R}/billing`)).json().total).toBe(0);
  });

  it('filters by expiration range (whole days, inclusive, or instants) and status', async () => {
    const day = (i: number) => due[i].expireAt.slice(0, 10);
    expect(await ids(`?expirationDateRangeStartDate=${day(1)}&orderBy=expireAt:asc`)).toEqual([due[1].id, due[2].id]);
    expect(await ids(`?expirationDateRangeEndDate=${day(1)}&orderBy=expireAt:asc`)).toEqual([due[0].id, due[1].id]);
    expect(await ids(`?expirationDateRangeStartDate=${day(1)}&expirationDateRangeEndDate=${day(1)}`)).toEqual([due[1].id]);
    expect(await ids(`?expirationDateRangeStartDate=${encodeURIComponent(due[1].expireAt)}&expirationDateRangeEndDate=${encodeURIComponent(due[1].expireAt)}`)).toEqual([due[1].id]);
    expect(await ids('?status=Opened')).toHaveLength(3);
    expect(await ids('?status=Paid')).toEqual([]);
  });

  it('refuses bad dates, an inverted range, an unknown status or orderBy (400)', async () => {
    const cases: [string, string][] = [
      ['?expirationDateRangeStartDate=2026-02-30', 'query.expirationDateRangeStartDate'],
      ['?expirationDateRangeEndDate=yesterday', 'query.expirationDateRangeEndDate'],
      [`?expirationDateRangeStartDate=${due[2].expireAt.slice(0, 10)}&expirationDateRangeEndDate=${due[0].expireAt.slice(0, 10)}`, 'query.expirationDateRangeEndDate'],
      ['?status=Pending', 'query.status'],
      ['?orderBy=subscription', 'query.orderBy'],
      ['?orderBy=expireAt:newest', 'query.orderBy'],
    ];
    for (const [query, tag] of cases) {
      const res = await list(query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json()[0].tag).toBe(tag);
    }
  });

  it('orders by expireAt and amount, and pages', async () => {
    expect(await ids('?orderBy=expireAt:desc')).toEqual(due.map((d) => d.id).reverse());
    const page = await list('?orderBy=expireAt&limit=1&page=2');
    expect(page.json()).toMatchObject({ page: 2, limit: 1, total: 3, items: [{ id: due[1].id }] });
  });

  it('gets one billing with its attemptsHistory; another merchant\'s is 404', async () => {
    expect(await api.billing(due[0].id)).toMatchObject({ id: due[0].id, status: 'Opened', attemptsHistory: [] });
    const other = await t.merchant();
    expect((await recurrence(t, other).get(`${R}/billing/${due[0].id}`)).statusCode).toBe(404);
    expect((await recurrence(t, other).post(`${R}/billing/${due[0].id}/cancel`)).statusCode).toBe(404);
    expect((await api.get(`${R}/billing/00000000-0000-4000-8000-000000000000`)).statusCode).toBe(404);
  });

  it('cancels an Opened billing (JSON string id); the next one is issued; cancelling again or a Paid one is 409', async () => {
    const target = due[0];
    const res = await api.post(`${R}/billing/${target.id}/cancel`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toBe(target.id);
    const canceled = await api.billing(target.id);
    expect(canceled).toMatchObject({ status: 'Canceled', modifiedBy: m.userName, attemptsHistory: [] });
    expect(canceled.modifiedDate).toMatch(/Z$/);
    const again = await api.post(`${R}/billing/${target.id}/cancel`);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual([{ tag: 'invalid_state', description: expect.stringContaining('Canceled') }]);

    // The subscription goes on: billing 2 is due 30 days after the cancelled one.
    const subscriptionId = canceled.subscription.id;
    const next = (await api.billings()).find((b) => b.subscription.id === subscriptionId && b.installment === 2);
    expect(next).toMatchObject({ status: 'Opened', expireAt: iso(addDays(target.expireAt, 30)) });

    // The cancelled billing is never charged; billing 2 is, and then it cannot be cancelled.
    await clk.to(addDays(target.expireAt, 30));
    expect(await api.payments(target.id)).toEqual([]);
    expect((await api.billing(next.id)).status).toBe('Paid');
    const paid = await api.post(`${R}/billing/${next.id}/cancel`);
    expect(paid.statusCode).toBe(409);
    expect(paid.json()[0].description).toContain('Paid');
  });
});
