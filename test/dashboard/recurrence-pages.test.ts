import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { advance, forceOutcome, subscription, textOf } from './merchant-pages-support.js';
import { DashboardClient } from './support.js';

describe(`dashboard: plans, subscriptions and billing timelines (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let c: DashboardClient;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    c = new DashboardClient(t);
    await c.loginMerchant(m);
  });
  afterAll(() => t?.close());

  it('lists the plans and subscriptions made through the API, filters by status, and pages by keyset', async () => {
    const a = await subscription(t, m, { name: 'Plano Prata', order: 'PED-A' });
    await subscription(t, m, { name: 'Plano Bronze', order: 'PED-B' });
    const res = await c.get('/dashboard/subscriptions');
    expect(res.statusCode).toBe(200);
    const text = textOf(res.body);
    expect(text).toContain('Plano Prata');
    expect(text).toContain('Plano Bronze');
    expect(text).toContain('R$ 49,90');
    expect(res.body).toContain(`href="/dashboard/subscriptions/${a.subscriptionId}"`);
    expect((await c.get('/dashboard/subscriptions?status=Blocked')).body).not.toContain('PED-A');
    expect((await c.get('/dashboard/subscriptions?status=Active')).body).toContain('PED-A');
    expect((await c.get('/dashboard/subscriptions?status=Bogus')).statusCode).toBe(400);
    expect((await c.get('/dashboard/subscriptions?after=not-a-cursor')).statusCode).toBe(400);
    // Keyset paging: 30 subscriptions give a second page through the "next" link.
    for (let i = 0; i < 28; i++) await subscription(t, m, { order: `PED-${String(i).padStart(2, '0')}` });
    const first = await c.get('/dashboard/subscriptions');
    const next = /href="([^"]+after=[^"]+)" rel="next"/.exec(first.body)![1].replace(/&amp;/g, '&');
    const second = await c.get(next);
    expect(second.statusCode).toBe(200);
    const ids = (body: string) => [...body.matchAll(/href="\/dashboard\/subscriptions\/([0-9a-f-]{36})"/g)].map((x) => x[1]);
    expect(ids(first.body)).toHaveLength(25);
    expect(ids(second.body)).toHaveLength(5);
    expect(ids(first.body).filter((id) => ids(second.body).includes(id))).toEqual([]);
  });

  it("a subscription's page shows each attempt, the retry date after a 51, then the paid retry", async () => {
    const s = await subscription(t, m, { order: 'PED-RETRY', attempts: 2 });
    await forceOutcome(t, s.vaultId, '51');
    await advance(t, { days: 1, minutes: 1 });
    let page = await c.get(`/dashboard/subscriptions/${s.subscriptionId}`);
    expect(page.statusCode).toBe(200);
    let text = textOf(page.body);
    expect(text).toContain('Cobrança 1');
    expect(text).toContain('Em aberto');
    expect(text).toContain('Recusada');
    expect(text).toMatch(/código 51 Insufficient funds/);
    expect(text).toMatch(/Próxima tentativa \d\d\/\d\d\/\d{4} \d\d:\d\d/);
    expect(text).toMatch(/nova tentativa em \d\d\/\d\d\/\d{4}/);
    // The retry (D+2) pays.
    await forceOutcome(t, s.vaultId, null);
    await advance(t, { days: 2, minutes: 1 });
    page = await c.get(`/dashboard/subscriptions/${s.subscriptionId}`);
    text = textOf(page.body);
    expect(text).toContain('Paga');
    expect(text).toContain('Aprovada');
    expect(text).toMatch(/nova tentativa feita em \d\d\/\d\d\/\d{4}/);
    expect(text).toContain('Cobrança 2');
    expect(page.body).toMatch(/href="\/dashboard\/payments\/[0-9a-f-]{36}"/);
  });

  it('a Blocked subscription shows why (blockedReason and blockedReturnCode)', async () => {
    const s = await subscription(t, m, { order: 'PED-BLOCK' });
    await forceOutcome(t, s.vaultId, '46');
    await advance(t, { days: 1, minutes: 1 });
    const api = await t.inject({ method: 'GET', url: `/gateway/v1/recurrences/subscriptions/${s.subscriptionId}`, headers: m.headers });
    expect(api.json().status).toBe('Blocked');
    const page = await c.get(`/dashboard/subscriptions/${s.subscriptionId}`);
    const text = textOf(page.body);
    expect(text).toContain(`Bloqueada: ${api.json().blockedReason} (código ${api.json().blockedReturnCode})`);
  });

  it("another merchant's subscription is 404; a credential without the recurrence scope is 403", async () => {
    const s = await subscription(t, m, { order: 'PED-MINE' });
    const other = await t.merchant();
    const oc = new DashboardClient(t);
    await oc.loginMerchant(other);
    expect((await oc.get(`/dashboard/subscriptions/${s.subscriptionId}`)).statusCode).toBe(404);
    expect((await oc.get('/dashboard/subscriptions')).body).not.toContain('PED-MINE');
    const limited = await t.merchant({ scopes: ['payments'] });
    const lc = new DashboardClient(t);
    await lc.loginMerchant(limited);
    expect((await lc.get('/dashboard/subscriptions')).statusCode).toBe(403);
  });
});
