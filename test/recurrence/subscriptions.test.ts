import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { vault } from '../support/cards.js';
import { R, recurrence } from './support.js';

describe(`recurrence subscriptions (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let api: ReturnType<typeof recurrence>;
  let planId: string;
  let vaultId: string;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    api = recurrence(t, m);
    // A long trial: nothing in this file is charged.
    planId = await api.plan({ name: 'Gold', trialDays: 365 });
    vaultId = await vault(t, m, '4111111111111111');
  });
  afterAll(() => t.close());

  it('creates a subscription: 201 with the id as a JSON string, plan embedded, billing 1 issued', async () => {
    const res = await api.post(`${R}/subscriptions`, { planId, vaultId, orderNumber: '1234567890' });
    expect(res.statusCode).toBe(201);
    expect(res.body).toMatch(/^"[0-9a-f-]{36}"$/);
    const sub = await api.subscription(res.json());
    expect(sub).toEqual({
      id: res.json(),
      vaultId,
      orderNumber: '1234567890',
      status: 'Active',
      plan: expect.objectContaining({ id: planId, name: 'Gold', amount: 12.6, planType: 'Monthly', status: 'Active' }),
      createdBy: m.userName,
      createdDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    const billings = await t.ctx.database.db.selectFrom('billings').select(['installment', 'status']).where('subscription_id', '=', res.json()).execute();
    expect(billings).toEqual([{ installment: 1, status: 'Opened' }]);
  });

  it("answers another merchant's or an unknown plan and vault with 404, a deleted vault too", async () => {
    const other = await t.merchant();
    const otherApi = recurrence(t, other);
    const foreignPlan = await otherApi.plan();
    const foreignVault = await vault(t, other, '4111111111111111');
    const cases = [
      { planId: foreignPlan, vaultId },
      { planId, vaultId: foreignVault },
      { planId: '00000000-0000-4000-8000-000000000000', vaultId },
    ];
    for (const body of cases) {
      const res = await api.post(`${R}/subscriptions`, { ...body, orderNumber: 'X' });
      expect(res.statusCode, JSON.stringify(body)).toBe(404);
      expect(res.json()[0].tag).toBe('not_found');
    }
    const gone = await vault(t, m, '5555555555554444');
    await t.inject({ method: 'DELETE', url: `/gateway/v1/vaults/cards/${gone}`, headers: m.headers });
    expect((await api.post(`${R}/subscriptions`, { planId, vaultId: gone, orderNumber: 'X' })).statusCode).toBe(404);
  });

  it('refuses a plan that is not Active (409) and invalid input (400)', async () => {
    const inactive = await api.plan({ name: 'Paused' });
    await api.post(`${R}/plans/${inactive}/status`, { status: 'Inactive' });
    const res = await api.post(`${R}/subscriptions`, { planId: inactive, vaultId, orderNumber: 'X' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual([{ tag: 'invalid_state', description: expect.stringContaining('Inactive') }]);
    const cases: [object, string][] = [
      [{ planId, vaultId, orderNumber: '12345678901' }, 'orderNumber'],
      [{ planId, vaultId, orderNumber: '' }, 'orderNumber'],
      [{ planId, orderNumber: 'X' }, 'vaultId'],
      [{ planId: 'p'.repeat(37), vaultId, orderNumber: 'X' }, 'planId'],
      [{ planId, vaultId: 'v'.repeat(37), orderNumber: 'X' }, 'vaultId'],
    ];
    for (const [body, tag] of cases) {
      const bad = await api.post(`${R}/subscriptions`, body);
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(bad.json()[0].tag).toBe(tag);
    }
  });

  describe('list', () => {
    let lister: TestMerchant;
    let l: ReturnType<typeof recurrence>;
    let ids: string[];
    beforeAll(async () => {
      lister = await t.merchant();
      l = recurrence(t, lister);
      const gold = await l.plan({ name: 'Gold Club', trialDays: 365 });
      const basic = await l.plan({ name: 'Basic', trialDays: 365 });
      const card = await vault(t, lister, '4111111111111111');
      ids = [];
      for (const [plan, order] of [[gold, 'B-2'], [basic, 'A-1'], [gold, 'C-3']] as const) {
        ids.push(await l.subscribe(plan, card, order));
        await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes: 1 } });
      }
      await l.post(`${R}/subscriptions/${ids[2]}/status`, { status: 'Canceled' });
    });

    it('answers the envelope, newest first, with plans embedded; only this merchant', async () => {
      const res = await l.get(`${R}/subscriptions`);
      expect(res.json()).toMatchObject({ page: 1, limit: 20, total: 3 });
      expect(res.json().items.map((s: { id: string }) => s.id)).toEqual([...ids].reverse());
      expect(res.json().items[1].plan.name).toBe('Basic');
    });

    it('filters by planName (a part, any case) and status; orders and pages', async () => {
      expect((await l.get(`${R}/subscriptions?planName=gold`)).json().items.map((s: { id: string }) => s.id)).toEqual([ids[2], ids[0]]);
      expect((await l.get(`${R}/subscriptions?planName=gold&status=Active`)).json().items.map((s: { id: string }) => s.id)).toEqual([ids[0]]);
      expect((await l.get(`${R}/subscriptions?status=Canceled`)).json().total).toBe(1);
      const page = await l.get(`${R}/subscriptions?orderBy=orderNumber:asc&limit=2&page=1`);
      expect(page.json().items.map((s: { orderNumber: string }) => s.orderNumber)).toEqual(['A-1', 'B-2']);
      expect(page.json()).toMatchObject({ total: 3, limit: 2 });
    });

    it('refuses an unknown orderBy field or status filter (400)', async () => {
      for (const url of ['?orderBy=planName', '?orderBy=plan', '?orderBy=status:sideways', '?status=Actived']) {
        const res = await l.get(`${R}/subscriptions${url}`);
        expect(res.statusCode, url).toBe(400);
      }
      expect((await l.get(`${R}/subscriptions?orderBy=nope`)).json()[0].tag).toBe('query.orderBy');
    });
  });

  describe('status and vault', () => {
    it('answers {id}; Actived on an Active subscription changes nothing; an unknown value is 400', async () => {
      const id = await api.subscribe(planId, vaultId);
      const res = await api.post(`${R}/subscriptions/${id}/status`, { status: 'Actived' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ id });
      const billings = await t.ctx.database.db.selectFrom('billings').select('installment').where('subscription_id', '=', id).execute();
      expect(billings).toHaveLength(1);
      const bad = await api.post(`${R}/subscriptions/${id}/status`, { status: 'Active' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()[0].tag).toBe('status');
      // Canceled twice: the second is a no-op, still {id}.
      for (let i = 0; i < 2; i++) expect((await api.post(`${R}/subscriptions/${id}/status`, { status: 'Canceled' })).json()).toEqual({ id });
      expect((await api.subscription(id)).status).toBe('Canceled');
    });

    it('swaps the vault ({id}); another merchant\'s vault is 404', async () => {
      const id = await api.subscribe(planId, vaultId);
      const other = await vault(t, m, '5555555555554444');
      const res = await api.post(`${R}/subscriptions/${id}/vault`, { vaultId: other });
      expect(res.json()).toEqual({ id });
      expect((await api.subscription(id)).vaultId).toBe(other);
      const stranger = await t.merchant();
      const foreign = await vault(t, stranger, '4111111111111111');
      expect((await api.post(`${R}/subscriptions/${id}/vault`, { vaultId: foreign })).statusCode).toBe(404);
      expect((await api.post(`${R}/subscriptions/${id}/vault`, {})).statusCode).toBe(400);
    });

    it("answers another merchant's subscription with 404 everywhere", async () => {
      const id = await api.subscribe(planId, vaultId);
      const stranger = await t.merchant();
      const s = recurrence(t, stranger);
      expect((await s.get(`${R}/subscriptions/${id}`)).statusCode).toBe(404);
      expect((await s.post(`${R}/subscriptions/${id}/status`, { status: 'Canceled' })).statusCode).toBe(404);
      expect((await s.post(`${R}/subscriptions/${id}/vault`, { vaultId })).statusCode).toBe(404);
      expect((await api.subscription(id)).status).toBe('Active');
    });
  });
});
