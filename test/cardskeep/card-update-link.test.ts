import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { vault } from '../support/cards.js';
import { clock, outcome, R, recurrence } from '../recurrence/support.js';
import { DashboardClient } from '../dashboard/support.js';
import { textOf } from '../dashboard/merchant-pages-support.js';

const GOOD = '5555555555554444';

describe(`card update links (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  async function failing(code: string) {
    const m = await t.merchant();
    const r = recurrence(t, m);
    const vaultId = await vault(t, m, '4111111111111111');
    const planId = await r.plan({ attempts: 1 });
    await outcome(t, vaultId, code);
    const subscriptionId = await r.subscribe(planId, vaultId);
    await clock(t).runDue();
    return { m, r, vaultId, subscriptionId };
  }
  const pathOf = (url: string) => new URL(url).pathname;
  const submit = (path: string, fields: Record<string, string>) =>
    t.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });
  const card = (cardNumber: string) => ({ cardNumber, expirationMonth: '12', expirationYear: '2035', securityCode: '123', cardholderName: 'MARIA SILVA' });

  it('rescues a failed open billing: the page shows brand and last four only, a refused card changes nothing, a good one is stored, made the card and charged at once; the link works once', async () => {
    const { m, r, vaultId, subscriptionId } = await failing('51');
    const [billing] = await r.billings();
    expect(billing.status).toBe('Opened');
    const link = await r.post(`${R}/subscriptions/${subscriptionId}/card-update-link`);
    expect(link.statusCode, link.body).toBe(201);
    const { url, expiresAt } = link.json();
    expect(url).toMatch(/\/pay\/card-update\/cul_[A-Za-z0-9_-]+$/);
    expect(Date.parse(expiresAt)).toBeGreaterThan(t.ctx.clock.now().getTime());

    const page = await t.inject({ method: 'GET', url: pathOf(url) });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("form-action 'self'");
    expect(page.body).toContain('Visa •••• 1111');
    expect(page.body).toContain('name="viewport"');
    expect(page.body).not.toContain('411111');
    expect((await t.inject({ method: 'GET', url: `${pathOf(url)}?lang=en` })).body).toContain('Update your card');

    const refused = await submit(pathOf(url), card('4000000000000002'));
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain('Not authorized');
    expect((await r.get(`${R}/subscriptions/${subscriptionId}`)).json().vaultId ?? vaultId).toBe(vaultId);

    const done = await submit(pathOf(url), card(GOOD));
    expect(done.statusCode, done.body).toBe(200);
    expect(done.body).toContain('4444');
    expect(done.body).not.toContain(GOOD);
    const after = await r.billing(billing.id);
    expect(after.status).toBe('Paid');
    const sub = await t.ctx.database.db.selectFrom('subscriptions').select(['vault_id', 'status']).where('subscription_id', '=', subscriptionId).executeTakeFirstOrThrow();
    expect(sub.vault_id).not.toBe(vaultId);
    expect((await t.ctx.cards.loadVaultCard(t.ctx.database.db, m.merchantId, sub.vault_id)).pan).toBe(GOOD);

    const again = await t.inject({ method: 'GET', url: pathOf(url) });
    expect(again.statusCode).toBe(410);
    expect(again.body).not.toContain('<form');
    expect((await submit(pathOf(url), card(GOOD))).statusCode).toBe(410);

    // The dashboard's subscription page shows the dunning state: the link sent and used.
    const c = new DashboardClient(t);
    await c.loginMerchant(m);
    const dash = textOf((await c.get(`/dashboard/subscriptions/${subscriptionId}`)).body);
    expect(dash).toMatch(/Link de atualização do cartão enviado em .* usado em/);
  });

  it('the dashboard shows a failed billing awaiting its next attempt, and a link not used yet', async () => {
    const { m, r, subscriptionId } = await failing('51');
    await r.post(`${R}/subscriptions/${subscriptionId}/card-update-link`);
    const c = new DashboardClient(t);
    await c.loginMerchant(m);
    const dash = textOf((await c.get(`/dashboard/subscriptions/${subscriptionId}`)).body);
    expect(dash).toMatch(/A cobrança nº 1 falhou \(Opened, código 51, retryable\)\. Próxima tentativa/);
    expect(dash).toContain('ainda não usado');
  });

  it('a Blocked subscription that pays with the new card is Active again', async () => {
    const { r, subscriptionId } = await failing('46');
    expect((await r.get(`${R}/subscriptions/${subscriptionId}`)).json().status).toBe('Blocked');
    const { url } = (await r.post(`${R}/subscriptions/${subscriptionId}/card-update-link`)).json();
    const done = await submit(pathOf(url), card(GOOD));
    expect(done.statusCode, done.body).toBe(200);
    expect((await r.get(`${R}/subscriptions/${subscriptionId}`)).json().status).toBe('Active');
    expect(done.body).toMatch(/cobrança em aberto foi paga/);
    const due = (await r.billings()).filter((b) => Date.parse(b.expireAt) <= t.ctx.clock.now().getTime());
    expect(due.at(-1).status).toBe('Paid');
  });

  it('expires, and is 409 for a Canceled subscription; 404 for another merchant', async () => {
    const { m, r, subscriptionId } = await failing('51');
    const { url } = (await r.post(`${R}/subscriptions/${subscriptionId}/card-update-link`)).json();
    await clock(t).days(8);
    const expired = await t.inject({ method: 'GET', url: pathOf(url) });
    expect(expired.statusCode).toBe(410);
    expect(expired.body).not.toContain('<form');
    const other = await t.merchant();
    expect((await recurrence(t, other).post(`${R}/subscriptions/${subscriptionId}/card-update-link`)).statusCode).toBe(404);
    expect((await r.post(`${R}/subscriptions/${subscriptionId}/status`, { status: 'Canceled' })).statusCode).toBeLessThan(300);
    const canceled = await r.post(`${R}/subscriptions/${subscriptionId}/card-update-link`);
    expect(canceled.statusCode).toBe(409);
    // A Pix subscription has no card to update.
    const pixPlan = (await r.post(`${R}/plans`, { name: 'P', description: 'd', amount: 10, planType: 'Monthly', paymentMethod: 'Pix' })).json();
    const pixSub = await r.post(`${R}/subscriptions`, { planId: pixPlan, orderNumber: 'PIX-1', payer: { documentNumber: '52998224725', name: 'MARIA SILVA' } });
    expect(pixSub.statusCode, pixSub.body).toBe(201);
    expect((await r.post(`${R}/subscriptions/${pixSub.json()}/card-update-link`)).statusCode).toBe(409);
    void m;
  });
});
