import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { advanceTo, pay, search, settlementMerchant } from './support.js';

const PREPAY = '/integration/api/prepayments';

describe(`pricing and prepayment (${testDialect})`, () => {
  let t: TestApp;
  let m: Awaited<ReturnType<typeof settlementMerchant>>;
  let other: Awaited<ReturnType<typeof settlementMerchant>>;
  beforeAll(async () => {
    t = await testApp();
    m = await settlementMerchant(t);
    other = await settlementMerchant(t);
  });
  afterAll(() => t.close());

  const pricingUrl = () => `/admin/merchants/${m.merchantId}/pricing`;
  const prepay = (payload: object, accountNumber: number | string = m.accountNumber, headers = m.integration) =>
    t.inject({ method: 'POST', url: `${PREPAY}?accountNumber=${accountNumber}`, headers, payload });

  it('GET answers the contract defaults; PUT takes any part and validates percents and fees', async () => {
    const got = await t.inject({ method: 'GET', url: pricingUrl(), headers: t.adminHeaders });
    expect(got.json()).toEqual({
      mdr: { credit1x: 2.99, credit2to6: 3.49, credit7to12: 3.99, pix: 0.99 },
      transactionFee: 0.1,
      antifraudFee: 0.15,
      prepayment: { monthlyRate: 1.99, automatic: false },
    });
    const put = await t.inject({ method: 'PUT', url: pricingUrl(), headers: t.adminHeaders, payload: { mdr: { credit2to6: 4 }, transactionFee: 0, antifraudFee: 0, prepayment: { monthlyRate: 2.5 } } });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({
      mdr: { credit1x: 2.99, credit2to6: 4, credit7to12: 3.99, pix: 0.99 },
      transactionFee: 0,
      antifraudFee: 0,
      prepayment: { monthlyRate: 2.5, automatic: false },
    });
    const bad = await t.inject({ method: 'PUT', url: pricingUrl(), headers: t.adminHeaders, payload: { mdr: { credit1x: 100.0001, pix: 1.23456 }, transactionFee: 0.101, prepayment: { monthlyRate: -1 } } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().map((e: any) => e.tag)).toEqual(['mdr.credit1x', 'mdr.pix', 'transactionFee', 'prepayment.monthlyRate']);
    expect((await t.inject({ method: 'GET', url: pricingUrl(), headers: t.adminHeaders })).json().mdr.credit2to6).toBe(4);
    expect((await t.inject({ method: 'GET', url: '/admin/merchants/mer_nope/pricing', headers: t.adminHeaders })).statusCode).toBe(404);
    expect((await t.inject({ method: 'GET', url: pricingUrl() })).statusCode).toBe(401);
  });

  it('one-off prepayment (type A): 150.00 in 3 at MDR 4 %, 2.5 % a month, anticipated to the next business day', async () => {
    // Sale Monday 2027-04-05: regular dates 05-05, 06-04, 07-05 (07-04 is a Sunday); prepaid the
    // same day to Tue 04-06, i.e. 29, 59 and 90 days early at 48.00 x 2.5 % / 30 = 0.04 a day:
    // discounts 1.16, 2.36, 3.60; received 46.84, 45.64, 44.40; total 136.88. (30/60/90 days give
    // the reference 46.80, 45.60, 44.40: see arithmetic.test.ts.)
    await advanceTo(t, '2027-04-05T10:00:00.000Z');
    const p = await pay(t, m, { amount: 15000, installments: 3 });
    const res = await prepay({ items: [1, 2, 3].map((installmentNumber) => ({ nsu: p.nsu, installmentNumber })) });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ receivedDate: '2027-04-06', count: 3, totalReceivedValue: 136.88, totalDiscount: 7.12 });
    expect(body.items.map((r: any) => [r.receivedType, r.receivedDateForeast, r.discountAntecipationValue, r.discountAntecipationTax, r.receivedValue])).toEqual([
      ['A', '2027-04-06T00:00:00.000Z', 1.16, 2.5, 46.84],
      ['A', '2027-04-06T00:00:00.000Z', 2.36, 2.5, 45.64],
      ['A', '2027-04-06T00:00:00.000Z', 3.6, 2.5, 44.4],
    ]);
    const stored = (await search(t, m.integration, 'search-by-code', { accountNumber: m.accountNumber, nsu: p.nsu })).json();
    expect(stored).toEqual(body.items);
    // Already anticipated: 409; unknown: 404; nothing changes.
    expect((await prepay({ items: [{ nsu: p.nsu, installmentNumber: 1 }] })).statusCode).toBe(409);
    expect((await prepay({ items: [{ nsu: p.nsu, installmentNumber: 4 }] })).statusCode).toBe(404);
    // Settled on the new date, and the payment becomes Paid.
    await advanceTo(t, '2027-04-06T08:00:00.000Z');
    const settled = (await search(t, m.integration, 'search-by-payment-date', { accountNumber: m.accountNumber, startDate: '2027-04-06', endDate: '2027-04-06' })).json();
    expect(settled.map((r: any) => [r.installmentNumber, r.receivedStatus, r.receivedDateEffective])).toEqual([
      [1, 'P', '2027-04-06T00:00:00.000Z'],
      [2, 'P', '2027-04-06T00:00:00.000Z'],
      [3, 'P', '2027-04-06T00:00:00.000Z'],
    ]);
    expect((await t.inject({ method: 'GET', url: `/gateway/v1/payments/${p.paymentId}`, headers: m.headers })).json().status).toBe('Paid');
  });

  it('{all: true} anticipates every open regular installment; body and account are checked', async () => {
    const a = await pay(t, m, { amount: 1000, installments: 2 });
    const b = await pay(t, m, { amount: 2000, installments: 1 });
    const canceled = await pay(t, m, { amount: 3000, installments: 1 });
    await t.inject({ method: 'POST', url: `/gateway/v1/payments/${canceled.paymentId}/cancel`, headers: m.headers });
    const res = await prepay({ all: true });
    expect(res.statusCode).toBe(200);
    expect(res.json().items.map((r: any) => [r.nsu, r.installmentNumber])).toEqual([
      [a.nsu, 1],
      [a.nsu, 2],
      [b.nsu, 1],
    ]);
    expect((await prepay({ all: true })).json()).toMatchObject({ count: 0, items: [] });
    expect((await prepay({})).statusCode).toBe(400);
    expect((await prepay({ items: [] })).statusCode).toBe(400);
    expect((await prepay({ all: true }, other.accountNumber)).statusCode).toBe(403);
    expect((await prepay({ all: true }, 'x1')).statusCode).toBe(400);
    // Another account's sale is not found from this account.
    const foreign = await pay(t, other, { amount: 1000, installments: 1 });
    expect((await prepay({ items: [{ nsu: foreign.nsu, installmentNumber: 1 }] })).statusCode).toBe(404);
  });

  it('automatic prepayment: every new installment is anticipated (type E)', async () => {
    await t.inject({ method: 'PUT', url: pricingUrl(), headers: t.adminHeaders, payload: { prepayment: { automatic: true } } });
    await advanceTo(t, '2027-04-12T10:00:00.000Z'); // Monday -> anticipated to Tue 04-13
    const p = await pay(t, m, { amount: 15000, installments: 3 });
    const records = (await search(t, m.integration, 'search-by-code', { accountNumber: m.accountNumber, nsu: p.nsu })).json();
    // Regular 05-12 (Wed), 06-11 (Fri), 07-12 (Mon): 29, 59, 90 days early.
    expect(records.map((r: any) => [r.receivedType, r.receivedDateForeast, r.discountAntecipationValue, r.receivedValue])).toEqual([
      ['E', '2027-04-13T00:00:00.000Z', 1.16, 46.84],
      ['E', '2027-04-13T00:00:00.000Z', 2.36, 45.64],
      ['E', '2027-04-13T00:00:00.000Z', 3.6, 44.4],
    ]);
  });
});
