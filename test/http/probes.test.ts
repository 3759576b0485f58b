import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { cardNumber, paymentBody, tokenize } from '../support/cards.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';

/** Findings of an independent probe of the API, each through HTTP as the probe sent it. */
describe(`independent probe findings (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
  });
  afterAll(() => t.close());

  it('accepts 17-, 18- and 19-digit Visa numbers', async () => {
    for (const length of [17, 18, 19]) {
      const pan = cardNumber('4532', { length });
      const res = await t.inject({ method: 'POST', url: '/gateway/v1/tokens/cards', headers: m.headers, payload: { cardNumber: pan, expirationMonth: '12', expirationYear: '2035' } });
      expect(res.statusCode, `${length} digits: ${res.body}`).toBe(201);
      expect(res.json().brand).toBe('visa');
      const paid = await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: paymentBody({ numberToken: res.json().numberToken }) });
      expect(paid.json()).toMatchObject({ status: 'Authorized', maskedCardNumber: `${pan.slice(0, 6)}${'*'.repeat(length - 10)}${pan.slice(-4)}` });
    }
  });

  it('answers an absurd page (1e308) with 400 on query.page, not 500', async () => {
    const integration = await t.merchant({ api: 'integration' });
    const res = await t.inject({ method: 'GET', url: `/integration/api/webhooks/deliveries?accountNumber=${integration.accountNumber}&page=1e308`, headers: integration.headers });
    expect(res.statusCode).toBe(400);
    expect(res.json()[0].tag).toBe('query.page');
    expect((await t.inject({ method: 'GET', url: '/gateway/v1/recurrences/plans?page=1e308', headers: m.headers })).statusCode).toBe(400);
  });

  it('answers a malformed plan, subscription or billing id with 400, an unknown one with 404', async () => {
    for (const path of ['plans/not-a-guid', 'subscriptions/123', 'billing/x']) {
      const res = await t.inject({ method: 'GET', url: `/gateway/v1/recurrences/${path}`, headers: m.headers });
      expect(res.statusCode, path).toBe(400);
    }
    expect((await t.inject({ method: 'GET', url: '/gateway/v1/recurrences/plans/3fa85f64-5717-4562-b3fc-2c963f66afa6', headers: m.headers })).statusCode).toBe(404);
  });

  it('answers a known path asked with another method with 405 and Allow', async () => {
    const res = await t.inject({ method: 'PUT', url: '/gateway/v1/payments', headers: m.headers, payload: {} });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.json()[0].tag).toBe('method_not_allowed');
    const byId = await t.inject({ method: 'DELETE', url: '/gateway/v1/payments/3fa85f64-5717-4562-b3fc-2c963f66afa6', headers: m.headers });
    expect(byId.statusCode).toBe(405);
    expect(byId.headers.allow).toBe('GET');
    expect((await t.inject({ method: 'GET', url: '/gateway/v1/nothing-here', headers: m.headers })).statusCode).toBe(404);
  });

  it('says that a card amount is integer cents when it is sent as 150.5', async () => {
    const numberToken = await tokenize(t, m, '4111111111111111');
    const res = await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: paymentBody({ numberToken }, { payment: { transactionType: 'credit', amount: 150.5, productType: 'avista', installments: 1 } }) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([{ tag: 'payment.amount', description: expect.stringContaining('integer number of cents') }]);
  });

  it("gives a plan's createdDate milliseconds like every other timestamp (still without zone)", async () => {
    const res = await t.inject({ method: 'POST', url: '/gateway/v1/recurrences/plans', headers: m.headers, payload: { name: 'P', description: 'D', amount: 10, planType: 'Monthly', paymentMethod: 'CreditCard' } });
    const plan = await t.inject({ method: 'GET', url: `/gateway/v1/recurrences/plans/${res.json()}`, headers: m.headers });
    expect(plan.json().createdDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
  });
});
