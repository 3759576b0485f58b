import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { emitEvents } from '../webhooks/support.js';
import { advance, fullMerchant, pixCharge, textOf, type FullMerchant } from './merchant-pages-support.js';
import { DashboardClient } from './support.js';

/** A URL nothing listens on: every attempt fails at once (connection refused). */
const DEAD_URL = 'http://127.0.0.1:9/hooks';

describe(`dashboard: webhooks (${testDialect})`, () => {
  let t: TestApp;
  let m: FullMerchant;
  let c: DashboardClient;
  beforeAll(async () => {
    t = await testApp();
    m = await fullMerchant(t);
    c = new DashboardClient(t);
    await c.loginMerchant(m);
  });
  afterAll(() => t?.close());

  const apiGet = (path: string) => t.inject({ method: 'GET', url: `/integration/api/webhooks/${path}${path.includes('?') ? '&' : '?'}accountNumber=${m.accountNumber}`, headers: m.integration });

  it('registers the URL with the form: the signing secret is shown in that answer only; the API sees the subscription', async () => {
    await c.get('/dashboard/webhooks');
    const bad = await c.post('/dashboard/webhooks/subscription', { url: 'ftp://example.com/x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('url must');
    expect((await apiGet('subscriptions')).statusCode).toBe(404);

    const form = new URLSearchParams({ url: DEAD_URL, _csrf: c.csrf });
    form.append('types', '*');
    const saved = await t.inject({ method: 'POST', url: '/dashboard/webhooks/subscription', headers: { cookie: Object.entries(c.jar).map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' }, payload: form.toString() });
    expect(saved.statusCode, saved.body).toBe(200);
    const secret = /<code>(whsec_[^<]+)<\/code>/.exec(saved.body)![1];
    const api = await apiGet('subscriptions');
    expect(api.json()).toMatchObject({ url: DEAD_URL, types: ['*'] });
    const again = await c.get('/dashboard/webhooks');
    expect(again.body).toContain(DEAD_URL);
    expect(again.body).not.toContain(secret);
    expect(again.body).not.toContain('whsec_');
  });

  it('shows the delivery log with its attempts, filtered by status, channel, type and date', async () => {
    await emitEvents(t.ctx, m, 2);
    const charge = await pixCharge(t, m, 1500, 'Caneca');
    expect((await t.inject({ method: 'POST', url: `/sandbox/pix/${charge.id}/pay`, headers: t.adminHeaders })).statusCode).toBe(200);
    await advance(t, { minutes: 0 });
    const log = await c.get('/dashboard/webhooks');
    expect(log.statusCode).toBe(200);
    const text = textOf(log.body);
    expect(text).toContain('TransactionStatus');
    expect(text).toContain('pix_charge.paid');
    expect(text).toMatch(/connection refused|ECONNREFUSED|refused/i);

    const byType = await c.get('/dashboard/webhooks?type=pix_charge.paid');
    expect(textOf(byType.body)).toContain('pix_charge.paid');
    expect(byType.body).not.toContain('<code>TransactionStatus</code>');
    const delivered = await c.get('/dashboard/webhooks?status=Delivered');
    expect(delivered.body).not.toContain('<code>TransactionStatus</code>');
    const callbacks = await c.get('/dashboard/webhooks?channel=callback');
    expect(callbacks.body).not.toContain('<code>pix_charge.paid</code>');
    const today = t.ctx.clock.now().toISOString().slice(0, 10);
    expect((await c.get(`/dashboard/webhooks?startDate=${today}&endDate=${today}`)).body).toContain('<code>pix_charge.paid</code>');
    expect((await c.get('/dashboard/webhooks?startDate=2000-01-01&endDate=2000-01-02')).body).not.toContain('<code>pix_charge.paid</code>');
    const reversed = await c.get('/dashboard/webhooks?startDate=2000-01-02&endDate=2000-01-01');
    expect(reversed.statusCode).toBe(400);
    expect(reversed.body).toContain('startDate must not be after endDate.');
    expect((await c.get('/dashboard/webhooks?type=nope')).statusCode).toBe(400);
    // The API route keeps its schema: a `type` in its query string filters nothing there.
    const apiTyped = await apiGet('deliveries?type=pix_charge.paid&limit=100');
    if (apiTyped.statusCode === 200) expect(apiTyped.json().items.some((d: { type: string }) => d.type === 'TransactionStatus')).toBe(true);
  });

  it('redelivers from the log (Pending again through the API); refuses a CSRF-less post; a 409 is a message', async () => {
    const items = (await apiGet('deliveries?limit=100')).json().items as { movementId: number; status: string; channel: string }[];
    const target = items.find((d) => d.channel === 'webhook' && d.status !== 'Pending') ?? items[0];
    await advance(t, { days: 4 }); // past the retry window: the failures end Exhausted
    const before = ((await apiGet('deliveries?limit=100')).json().items as { movementId: number; status: string }[]).find((d) => d.movementId === target.movementId)!;
    expect(before.status).not.toBe('Pending');

    await c.get('/dashboard/webhooks');
    const forged = await c.post(`/dashboard/webhooks/deliveries/${target.movementId}/redeliver`, {}, { csrf: null });
    expect(forged.statusCode).toBe(403);
    const still = ((await apiGet('deliveries?limit=100')).json().items as { movementId: number; status: string }[]).find((d) => d.movementId === target.movementId)!;
    expect(still.status).toBe(before.status);

    const done = await c.post(`/dashboard/webhooks/deliveries/${target.movementId}/redeliver`, {});
    expect(done.statusCode).toBe(303);
    expect(textOf((await c.get(done.headers.location as string)).body)).toContain(`Notificação ${target.movementId} reenviada`);
    const after = ((await apiGet('deliveries?limit=100')).json().items as { movementId: number; status: string }[]).find((d) => d.movementId === target.movementId)!;
    expect(after.status).toBe('Pending');

    // Without a URL a webhook cannot be redelivered: the service's 409, shown on the page.
    await c.get('/dashboard/webhooks');
    expect((await c.post('/dashboard/webhooks/remove', {})).statusCode).toBe(303);
    expect((await apiGet('subscriptions')).statusCode).toBe(404);
    await c.get('/dashboard/webhooks');
    const conflict = await c.post(`/dashboard/webhooks/deliveries/${target.movementId}/redeliver`, {});
    expect(conflict.statusCode).toBe(409);
    expect(conflict.body).toContain('No webhook URL is registered');
    expect(conflict.body).toContain('role="alert"');
  });

  it("another account's movementId is 404; a credential without the integration scope is 403", async () => {
    const items = (await apiGet('deliveries?limit=1')).json().items as { movementId: number }[];
    const other = await fullMerchant(t);
    const oc = new DashboardClient(t);
    await oc.loginMerchant(other);
    await oc.get('/dashboard/webhooks');
    expect((await oc.post(`/dashboard/webhooks/deliveries/${items[0].movementId}/redeliver`, {})).statusCode).toBe(404);
    expect((await oc.get('/dashboard/webhooks')).body).not.toContain('TransactionStatus</code>');
    const limited = await t.merchant({ scopes: ['payments'] });
    const lc = new DashboardClient(t);
    await lc.loginMerchant(limited);
    expect((await lc.get('/dashboard/webhooks')).statusCode).toBe(403);
  });
});
