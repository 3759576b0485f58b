import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { vault } from '../support/cards.js';
import { monthly, R, recurrence } from './support.js';

describe(`recurrence plans (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let api: ReturnType<typeof recurrence>;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    api = recurrence(t, m);
  });
  afterAll(() => t.close());

  const create = (body: object, headers = m.headers) => api.post(`${R}/plans`, body, headers);

  it('creates a plan: 201 with the id as a JSON string; merchantId from the token; amount 12.6 exact', async () => {
    const res = await create(monthly({ trialDays: 7, attempts: 2 }));
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatch(/^"[0-9a-f-]{36}"$/);
    const got = await api.get(`${R}/plans/${res.json()}`);
    expect(got.statusCode).toBe(200);
    expect(got.body).toContain('"amount":12.6,');
    expect(got.json()).toEqual({
      id: res.json(),
      merchantId: m.merchantId,
      name: 'Gold',
      description: 'Gold plan',
      amount: 12.6,
      planType: 'Monthly',
      trialDays: 7,
      paymentMethod: 'CreditCard',
      interval: 30,
      installments: null,
      attempts: 2,
      status: 'Active',
      // ISO 8601 without zone: UTC wall time (contract section 2).
      createdDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/),
      createdBy: m.userName,
    });
    expect(Math.abs(Date.parse(`${got.json().createdDate}Z`) - t.ctx.clock.now().getTime())).toBeLessThan(5000);
    const stored = await t.ctx.database.db.selectFrom('plans').select('amount').where('plan_id', '=', res.json()).executeTakeFirstOrThrow();
    expect(Number(stored.amount)).toBe(12_600_000);
  });

  it('keeps 6 decimals exactly and refuses a 7th', async () => {
    const id = await api.plan({ amount: 1234.123456 });
    expect((await api.get(`${R}/plans/${id}`)).json().amount).toBe(1234.123456);
    const bad = await create(monthly({ amount: 1.1234567 }));
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual([{ tag: 'amount', description: expect.stringContaining('6 decimals') }]);
    // A string keeps digits a JSON number cannot.
    const exact = await api.plan({ amount: '99999999.994999' });
    expect((await api.get(`${R}/plans/${exact}`)).json().amount).toBe(99999999.994999);
  });

  it('refuses amounts that could never be charged (zero, below a cent, above the card payment limit)', async () => {
    for (const amount of [0, 0.004, 100000000, -5, 'abc']) {
      const res = await create(monthly({ amount }));
      expect(res.statusCode, String(amount)).toBe(400);
      expect(res.json()[0].tag).toBe('amount');
    }
  });

  it('sets interval and installments from the fixed types, and refuses them when sent', async () => {
    const expected = { Monthly: 30, Bimonthly: 60, Quarterly: 90, Semesterly: 180, Yearly: 365 };
    for (const [planType, interval] of Object.entries(expected)) {
      const id = await api.plan({ planType });
      expect((await api.get(`${R}/plans/${id}`)).json()).toMatchObject({ planType, interval, installments: null, attempts: 0, trialDays: 0 });
    }
    const withInterval = await create(monthly({ interval: 30 }));
    expect(withInterval.statusCode).toBe(400);
    expect(withInterval.json()).toEqual([{ tag: 'interval', description: expect.stringContaining('must not be sent') }]);
    const withBoth = await create(monthly({ planType: 'Yearly', interval: 365, installments: 1 }));
    expect(withBoth.json().map((e: { tag: string }) => e.tag)).toEqual(['interval', 'installments']);
  });

  it('requires Custom interval >= 20 (20 accepted, 19 refused) and installments >= 1', async () => {
    const ok = await api.plan({ planType: 'Custom', interval: 20, installments: 3 });
    expect((await api.get(`${R}/plans/${ok}`)).json()).toMatchObject({ planType: 'Custom', interval: 20, installments: 3 });
    const cases: [object, string[]][] = [
      [{ interval: 19, installments: 3 }, ['interval']],
      [{ installments: 3 }, ['interval']],
      [{ interval: 30 }, ['installments']],
      [{ interval: 30, installments: 0 }, ['installments']],
      [{}, ['interval', 'installments']],
    ];
    for (const [extra, tags] of cases) {
      const res = await create(monthly({ planType: 'Custom', ...extra }));
      expect(res.statusCode, JSON.stringify(extra)).toBe(400);
      expect(res.json().map((e: { tag: string }) => e.tag)).toEqual(tags);
    }
  });

  it('takes attempts 0..4 and refuses 5; validates every field', async () => {
    expect((await api.get(`${R}/plans/${await api.plan({ attempts: 4 })}`)).json().attempts).toBe(4);
    const cases: [object, string][] = [
      [monthly({ attempts: 5 }), 'attempts'],
      [monthly({ attempts: -1 }), 'attempts'],
      [monthly({ planType: 'Weekly' }), 'planType'],
      [monthly({ paymentMethod: 'Boleto' }), 'paymentMethod'],
      [monthly({ name: 'x'.repeat(256) }), 'name'],
      [monthly({ description: 'x'.repeat(256) }), 'description'],
      [monthly({ trialDays: -1 }), 'trialDays'],
      [{ ...monthly(), name: undefined }, 'name'],
      [{ ...monthly(), amount: undefined }, 'amount'],
    ];
    for (const [body, tag] of cases) {
      const res = await create(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()[0].tag).toBe(tag);
    }
  });

  it('checks merchantId: its own is fine, another merchant is 403, a malformed one 400', async () => {
    const other = await t.merchant();
    expect((await create(monthly({ merchantId: m.merchantId }))).statusCode).toBe(201);
    const foreign = await create(monthly({ merchantId: other.merchantId }));
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()[0].tag).toBe('forbidden');
    const malformed = await create(monthly({ merchantId: 'not a merchant!' }));
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()[0].tag).toBe('merchantId');
  });

  it('needs the recurrence scope: a payments-only token is 403, no token 401', async () => {
    const payer = await t.merchant({ scopes: ['payments'] });
    const res = await create(monthly(), payer.headers);
    expect(res.statusCode).toBe(403);
    expect((await api.get(`${R}/plans`, payer.headers)).statusCode).toBe(403);
    expect((await api.get(`${R}/billing`, payer.headers)).statusCode).toBe(403);
    expect((await t.inject({ method: 'GET', url: `${R}/plans` })).statusCode).toBe(401);
  });

  it('replays a create with the same Idempotency-Key instead of making a second plan', async () => {
    const headers = { ...m.headers, 'idempotency-key': 'plan-create-1' };
    const first = await create(monthly({ name: 'Idem' }), headers);
    const again = await create(monthly({ name: 'Idem' }), headers);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toBe(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect((await api.get(`${R}/plans?name=Idem`)).json().total).toBe(1);
  });

  it("answers another merchant's plan with 404 everywhere", async () => {
    const other = await t.merchant();
    const id = await recurrence(t, other).plan();
    expect((await api.get(`${R}/plans/${id}`)).statusCode).toBe(404);
    expect((await api.post(`${R}/plans/${id}`, monthly({ merchantId: m.merchantId }))).statusCode).toBe(404);
    // With the plan owner's merchantId in the body too: the foreign id decides (404), both ways.
    expect((await api.post(`${R}/plans/${id}`, monthly({ merchantId: other.merchantId }))).statusCode).toBe(404);
    const mine = await api.plan();
    expect((await recurrence(t, other).post(`${R}/plans/${mine}`, monthly({ merchantId: m.merchantId }))).statusCode).toBe(404);
    expect((await api.post(`${R}/plans/${id}/status`, { status: 'Inactive' })).statusCode).toBe(404);
    expect((await api.get(`${R}/plans/${'x'.repeat(37)}`)).statusCode).toBe(400);
  });

  describe('list', () => {
    let lister: TestMerchant;
    let l: ReturnType<typeof recurrence>;
    beforeAll(async () => {
      lister = await t.merchant();
      l = recurrence(t, lister);
      // A minute apart, so "newest first" has one answer (same-millisecond rows tie on createdDate).
      const minute = () => t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes: 1 } });
      for (const [name, amount] of [['Basic', 10], ['Premium Plus', 30], ['premium', 20]] as const) {
        await l.plan({ name, amount });
        await minute();
      }
      const inactive = await l.plan({ name: 'Old 100%_plan', amount: 5 });
      await l.post(`${R}/plans/${inactive}/status`, { status: 'Inactive' });
    });

    it('answers the envelope, newest first by default, only this merchant', async () => {
      const res = await l.get(`${R}/plans`);
      expect(res.json()).toMatchObject({ page: 1, limit: 20, total: 4 });
      expect(res.json().items.map((p: { name: string }) => p.name)).toEqual(['Old 100%_plan', 'premium', 'Premium Plus', 'Basic']);
    });

    it('filters by name (a part, any case; % and _ match themselves) and status', async () => {
      expect((await l.get(`${R}/plans?name=PREMIUM`)).json().items.map((p: { name: string }) => p.name)).toEqual(['premium', 'Premium Plus']);
      expect((await l.get(`${R}/plans?name=${encodeURIComponent('0%_')}`)).json().total).toBe(1);
      expect((await l.get(`${R}/plans?name=${encodeURIComponent('m%')}`)).json().total).toBe(0);
      expect((await l.get(`${R}/plans?status=Inactive`)).json().items.map((p: { name: string }) => p.name)).toEqual(['Old 100%_plan']);
      expect((await l.get(`${R}/plans?status=Gone`)).statusCode).toBe(400);
    });

    it('pages and orders by any top-level field; an unknown orderBy is 400', async () => {
      const page = await l.get(`${R}/plans?orderBy=amount:asc&page=2&limit=2`);
      expect(page.json()).toMatchObject({ page: 2, limit: 2, total: 4 });
      expect(page.json().items.map((p: { amount: number }) => p.amount)).toEqual([20, 30]);
      expect((await l.get(`${R}/plans?orderBy=name`)).json().items[0].name).toBe('Basic');
      expect((await l.get(`${R}/plans?orderBy=merchantId:desc`)).json().total).toBe(4);
      for (const orderBy of ['plan.name', 'amount:up', 'merchant', 'createdDate:desc:x', '']) {
        const bad = await l.get(`${R}/plans?orderBy=${orderBy}`);
        expect(bad.statusCode, orderBy).toBe(400);
        expect(bad.json()[0].tag).toBe('query.orderBy');
      }
      expect((await l.get(`${R}/plans?limit=101`)).statusCode).toBe(400);
      expect((await l.get(`${R}/plans?page=0`)).statusCode).toBe(400);
    });
  });

  describe('update and status', () => {
    it('changes anything of a plan without subscriptions, except the amount while Active (409)', async () => {
      const id = await api.plan({ amount: 10 });
      const update = (body: object) => api.post(`${R}/plans/${id}`, { merchantId: m.merchantId, ...monthly(), ...body });
      const amount = await update({ amount: 11 });
      expect(amount.statusCode).toBe(409);
      expect(amount.json()).toEqual([{ tag: 'invalid_state', description: expect.stringContaining('Active') }]);
      const renamed = await update({ amount: 10, name: 'Silver', planType: 'Custom', interval: 45, installments: 6, attempts: 3 });
      expect(renamed.statusCode).toBe(200);
      expect(renamed.json()).toBe(id);
      expect((await api.get(`${R}/plans/${id}`)).json()).toMatchObject({ name: 'Silver', amount: 10, planType: 'Custom', interval: 45, installments: 6, attempts: 3 });
      expect((await api.post(`${R}/plans/${id}/status`, { status: 'Inactive' })).json()).toBe(id);
      expect((await update({ amount: 11.5, name: 'Silver' })).statusCode).toBe(200);
      expect((await api.get(`${R}/plans/${id}`)).json()).toMatchObject({ amount: 11.5, planType: 'Monthly', interval: 30, installments: null, attempts: 3 });
    });

    it('changes only name and description of a plan in use (409 for the rest)', async () => {
      const id = await api.plan({ amount: 10, trialDays: 30 });
      await api.subscribe(id, await vault(t, m, '4111111111111111'));
      await api.post(`${R}/plans/${id}/status`, { status: 'Inactive' });
      const update = (body: object) => api.post(`${R}/plans/${id}`, { merchantId: m.merchantId, ...monthly({ amount: 10, trialDays: 30 }), ...body });
      expect((await update({ name: 'New name', description: 'New text' })).statusCode).toBe(200);
      for (const change of [{ amount: 12 }, { trialDays: 1 }, { attempts: 1 }, { planType: 'Yearly' }]) {
        const res = await update({ name: 'New name', description: 'New text', ...change });
        expect(res.statusCode, JSON.stringify(change)).toBe(409);
        expect(res.json()[0].description).toContain('only name and description');
      }
      expect((await api.get(`${R}/plans/${id}`)).json()).toMatchObject({ name: 'New name', description: 'New text', amount: 10, trialDays: 30 });
    });

    it('requires merchantId on update (400), checks it (403), and applies the type rules (400)', async () => {
      const id = await api.plan();
      const { merchantId: _omit, ...noMerchant } = { merchantId: '', ...monthly() };
      expect((await api.post(`${R}/plans/${id}`, noMerchant)).json()[0].tag).toBe('merchantId');
      const other = await t.merchant();
      expect((await api.post(`${R}/plans/${id}`, { ...monthly(), merchantId: other.merchantId })).statusCode).toBe(403);
      // 30, the Monthly interval itself, is accepted on update (a plan read back can be posted back: test/recurrence/plan-readback.test.ts).
      const bad = await api.post(`${R}/plans/${id}`, { ...monthly({ interval: 31 }), merchantId: m.merchantId });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()[0].tag).toBe('interval');
    });

    it('moves between any two statuses; an unknown status is 400', async () => {
      const id = await api.plan();
      for (const status of ['Inactive', 'Active', 'Canceled', 'Active', 'Active']) {
        const res = await api.post(`${R}/plans/${id}/status`, { status });
        expect(res.statusCode).toBe(200);
        expect(res.json()).toBe(id);
        expect((await api.get(`${R}/plans/${id}`)).json().status).toBe(status);
      }
      const bad = await api.post(`${R}/plans/${id}/status`, { status: 'Actived' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()[0].tag).toBe('status');
    });
  });
});
