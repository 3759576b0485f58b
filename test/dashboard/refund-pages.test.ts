import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { pay, settlementMerchant } from '../settlement/support.js';
import { DashboardClient } from './support.js';

describe(`dashboard: refunds on the payment page (${testDialect})`, () => {
  let t: TestApp;
  let m: Awaited<ReturnType<typeof settlementMerchant>>;
  let c: DashboardClient;
  const apiPayment = async (id: string) => (await t.inject({ method: 'GET', url: `/gateway/v1/payments/${id}`, headers: m.headers })).json();

  beforeAll(async () => {
    t = await testApp();
    m = await settlementMerchant(t);
    c = new DashboardClient(t);
    await c.loginMerchant(m);
  });
  afterAll(() => t?.close());

  it('refunds part in reais, then the rest (blank): refundedAmount, the refunds listed, Canceled at the end', async () => {
    const p = await pay(t, m, { amount: 12_000, installments: 1, reference: 'to-refund' });
    const page = await c.get(`/dashboard/payments/${p.paymentId}`);
    expect(page.body).toContain(`action="/dashboard/payments/${p.paymentId}/refunds"`);
    expect(page.body).toContain('Nenhum estorno deste pagamento.');

    // Without the CSRF token nothing is refunded.
    const forged = await c.post(`/dashboard/payments/${p.paymentId}/refunds`, { amount: '40' }, { csrf: null });
    expect(forged.statusCode).toBe(403);
    expect((await apiPayment(p.paymentId)).refundedAmount).toBe(0);

    const part = await c.post(`/dashboard/payments/${p.paymentId}/refunds`, { amount: '40,00' });
    expect(part.statusCode, part.body).toBe(303);
    expect(part.headers.location).toBe(`/dashboard/payments/${p.paymentId}?done=refundSucceeded`);
    expect(await apiPayment(p.paymentId)).toMatchObject({ refundedAmount: 4_000, status: 'Authorized' });
    const after = await c.get(part.headers.location as string);
    expect(after.body).toContain('Estorno feito.');
    expect(after.body).toMatch(/id="refunded-amount">R\$\s40,00/);
    expect(/<table id="refunds">[\s\S]*?<\/table>/.exec(after.body)![0]).toContain('Succeeded');

    const rest = await c.post(`/dashboard/payments/${p.paymentId}/refunds`, { amount: '' });
    expect(rest.statusCode, rest.body).toBe(303);
    expect(await apiPayment(p.paymentId)).toMatchObject({ refundedAmount: 12_000, status: 'Canceled' });
    const list = (await t.inject({ method: 'GET', url: `/gateway/v1/payments/${p.paymentId}/refunds`, headers: m.headers })).json();
    expect(list.items.map((r: { amount: number }) => r.amount)).toEqual([4_000, 8_000]);
    const done = await c.get(`/dashboard/payments/${p.paymentId}`);
    expect(done.body).not.toContain(`action="/dashboard/payments/${p.paymentId}/refunds"`);
  });

  it('an over-refund, a mistyped amount and a refund of a canceled payment are refused on the page with the API error array; nothing changes', async () => {
    const p = await pay(t, m, { amount: 5_000, installments: 1, reference: 'over' });
    const over = await c.post(`/dashboard/payments/${p.paymentId}/refunds`, { amount: '50,01' });
    expect(over.statusCode).toBe(400);
    expect(over.body).toContain('role="alert"');
    expect(over.body).toMatch(/<li>amount: [^<]+<\/li>/);
    expect(over.body).toContain(`action="/dashboard/payments/${p.paymentId}/refunds"`);

    const typo = await c.post(`/dashboard/payments/${p.paymentId}/refunds`, { amount: 'forty' });
    expect(typo.statusCode).toBe(400);
    expect(typo.body).toContain('amount: amount deve ser em reais');
    expect((await apiPayment(p.paymentId)).refundedAmount).toBe(0);

    await c.get(`/dashboard/payments/${p.paymentId}`);
    expect((await c.post(`/dashboard/payments/${p.paymentId}/cancel`, {})).statusCode).toBe(303);
    const late = await c.post(`/dashboard/payments/${p.paymentId}/refunds`, { amount: '10' });
    expect(late.statusCode).toBe(409);
    expect(late.body).toMatch(/<li>status: [^<]+<\/li>/);
    expect((await apiPayment(p.paymentId)).refundedAmount).toBe(0);
  });

  it("another merchant's payment: 404, nothing refunded", async () => {
    const other = await settlementMerchant(t);
    const theirs = await pay(t, other, { amount: 3_000, installments: 1 });
    await c.get('/dashboard/payments');
    expect((await c.post(`/dashboard/payments/${theirs.paymentId}/refunds`, { amount: '' })).statusCode).toBe(404);
  });
});
