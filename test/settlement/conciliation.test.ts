import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { advanceTo, pay, search, settlementMerchant } from './support.js';

/**
 * The worked example, default pricing (MDR 2-6x 3.49 %, transaction fee R$ 0.10, anti-fraud
 * fee R$ 0.15), sale R$ 100.00 in 3 on Monday 2027-01-04 12:00 UTC:
 * - installment values 33.34 / 33.33 / 33.33 (leftover cent on installment 1);
 * - MDR 3.49 %: 33.34 x 0.0349 = 1.163566 -> 1.1636; 33.33 x 0.0349 = 1.163217 -> 1.1632;
 * - transaction fee 0.10 / 3 -> 0.0334 / 0.0333 / 0.0333; anti-fraud fee 0.15 / 3 -> 0.0500 each;
 * - received 33.34 - 1.1636 - 0.0334 - 0.05 = 32.0930; 33.33 - 1.1632 - 0.0333 - 0.05 = 32.0835;
 * - expected D+30 2027-02-03 (Wed), D+60 2027-03-05 (Fri), D+90 2027-04-04 (Sun) -> 2027-04-05;
 * - splits: bruto 10 % of 33.34 = 3.3340; liquido 12.5 % of 32.0930 = 4.011625 -> 4.0116,
 *   of 32.0835 = 4.0104375 -> 4.0104.
 */
describe(`conciliation records and searches (${testDialect})`, () => {
  let t: TestApp;
  let m: Awaited<ReturnType<typeof settlementMerchant>>;
  let other: Awaited<ReturnType<typeof settlementMerchant>>;
  let p1: any;
  let p2: any;
  beforeAll(async () => {
    t = await testApp();
    m = await settlementMerchant(t);
    other = await settlementMerchant(t);
    await advanceTo(t, '2027-01-04T12:00:00.000Z');
    p1 = await pay(t, m, {
      amount: 10000,
      installments: 3,
      reference: 'order-100',
      splits: [
        { documentNumberBeneficiary: '52998224725', percent: 10, type: 'bruto' },
        { documentNumberBeneficiary: '11222333000181', percent: 12.5, type: 'liquido' },
      ],
    });
    await advanceTo(t, '2027-01-05T09:30:00.000Z');
    p2 = await pay(t, m, { amount: 20000, installments: 1, card: '5555555555554444', reference: 'order-200' });
    await pay(t, other, { amount: 5000, installments: 1 });
  });
  afterAll(() => t.close());

  const acct = () => m.accountNumber;

  it('gives every field of the installment record (search-by-code)', async () => {
    const res = await search(t, m.integration, 'search-by-code', { accountNumber: acct(), nsu: p1.nsu, codAuth: p1.authorizationCode });
    expect(res.statusCode).toBe(200);
    const records = res.json();
    expect(records).toHaveLength(3);
    const common = {
      transactionDate: p1.createdAt,
      terminal: `EC${acct()}`,
      cardNumber: '4111*******1111',
      cardType: 'credit',
      cardName: 'VISA',
      codAuth: p1.authorizationCode,
      nsu: p1.nsu,
      installmentsCount: 3,
      transactionTotalValue: 100,
      installmentStatus: 'A',
      discountMdrTax: 3.49,
      discountTrnRateTransactionValue: 0.1,
      discountAntifraudRateInstalmentValue: 0.05,
      discountAntifraudRateTransactionValue: 0.15,
      discountAntecipationValue: 0,
      discountAntecipationTax: 0,
      receivedDateEffective: null,
      receivedType: 'R',
      receivedStatus: 'A',
      transactionReference: 'order-100',
      transactionPaymentIdWeb: p1.paymentId,
    };
    // The virtual clock keeps running after an advance: the sale is a few ms after 12:00.
    expect(p1.createdAt.slice(0, 16)).toBe('2027-01-04T12:00');
    expect(records[0]).toEqual({
      ...common,
      installmentNumber: 1,
      installmentValue: 33.34,
      discountMdrValue: 1.1636,
      discountTrnRateInstalmentValue: 0.0334,
      receivedValue: 32.093,
      receivedDateForeast: '2027-02-03T00:00:00.000Z',
      splits: [
        { beneficiario: '52998224725', tipoSplit: 'bruto', pctSplit: 10, valorBaseSplit: 33.34, valorSplit: 3.334 },
        { beneficiario: '11222333000181', tipoSplit: 'liquido', pctSplit: 12.5, valorBaseSplit: 32.093, valorSplit: 4.0116 },
      ],
    });
    const rest = { ...common, installmentValue: 33.33, discountMdrValue: 1.1632, discountTrnRateInstalmentValue: 0.0333, receivedValue: 32.0835 };
    const splits = [
      { beneficiario: '52998224725', tipoSplit: 'bruto', pctSplit: 10, valorBaseSplit: 33.33, valorSplit: 3.333 },
      { beneficiario: '11222333000181', tipoSplit: 'liquido', pctSplit: 12.5, valorBaseSplit: 32.0835, valorSplit: 4.0104 },
    ];
    expect(records[1]).toEqual({ ...rest, installmentNumber: 2, receivedDateForeast: '2027-03-05T00:00:00.000Z', splits });
    expect(records[2]).toEqual({ ...rest, installmentNumber: 3, receivedDateForeast: '2027-04-05T00:00:00.000Z', splits });
    // The payment answer of the same sale splits the whole sale in cents (src/domain/split.ts):
    // liquido 12.5 % of 96.26 = 12.0325 -> 12.03, not the installments' 4.0116 + 4.0104 + 4.0104 = 12.0324.
    expect(p1.splits.map((s: { amount: number }) => s.amount)).toEqual([1000, 1203]);
    // Exact decimals in the JSON text, and no splits key when no split is configured.
    expect(res.body).toContain('"receivedValue":32.0835');
    const single = (await search(t, m.integration, 'search-by-code', { accountNumber: acct(), nsu: p2.nsu })).json();
    expect(single).toHaveLength(1);
    expect(single[0]).not.toHaveProperty('splits');
    expect(single[0]).toMatchObject({ cardNumber: '5555*******4444', cardName: 'MASTERCARD', installmentValue: 200, discountMdrTax: 2.99, discountMdrValue: 5.98 });
    // 200.00 - 5.98 - 0.10 - 0.15 = 193.77
    expect(single[0].receivedValue).toBe(193.77);
  });

  it('search-by-code: nsu required, codAuth narrows, [] for no match', async () => {
    expect((await search(t, m.integration, 'search-by-code', { accountNumber: acct(), nsu: p1.nsu, codAuth: 'ZZZZZZ' })).json()).toEqual([]);
    expect((await search(t, m.integration, 'search-by-code', { accountNumber: acct(), nsu: '1' })).json()).toEqual([]);
    const missing = await search(t, m.integration, 'search-by-code', { accountNumber: acct() });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual([{ tag: 'query.nsu', description: expect.any(String) }]);
    // Another account's sale is invisible from this account.
    expect((await search(t, other.integration, 'search-by-code', { accountNumber: other.accountNumber, nsu: p1.nsu })).json()).toEqual([]);
  });

  it('gives every field of the summary record (search-by-operation-date), one per sale', async () => {
    const res = await search(t, m.integration, 'search-by-operation-date', { accountNumber: acct(), startDate: '2027-01-04', endDate: '2027-01-05' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      {
        transactionDate: p1.createdAt,
        terminal: `EC${acct()}`,
        cardNumber: '4111*******1111',
        cardType: 'credit',
        cardName: 'VISA',
        nsu: p1.nsu,
        codAuth: p1.authorizationCode,
        installments: 3,
        amount: 100,
        transactionStatus: 'A',
        transactionReference: 'order-100',
        transactionPaymentIdWeb: p1.paymentId,
      },
      expect.objectContaining({ transactionDate: p2.createdAt, installments: 1, amount: 200, nsu: p2.nsu }),
    ]);
    expect((await search(t, m.integration, 'search-by-operation-date', { accountNumber: acct(), startDate: '2027-01-05', endDate: '2027-01-05' })).json()).toHaveLength(1);
    expect((await search(t, m.integration, 'search-by-operation-date', { accountNumber: acct(), startDate: '2027-01-06', endDate: '2027-02-06' })).json()).toEqual([]);
  });

  it('search-by-operation-date-installments: every installment, ordered by transactionDate then installmentNumber', async () => {
    const res = await search(t, m.integration, 'search-by-operation-date-installments', { accountNumber: acct(), startDate: '2027-01-01', endDate: '2027-01-31' });
    expect(res.json().map((r: any) => [r.nsu, r.installmentNumber])).toEqual([
      [p1.nsu, 1],
      [p1.nsu, 2],
      [p1.nsu, 3],
      [p2.nsu, 1],
    ]);
  });

  it('search-by-payment-date filters on the expected receipt date while open', async () => {
    const by = async (startDate: string, endDate: string) =>
      (await search(t, m.integration, 'search-by-payment-date', { accountNumber: acct(), startDate, endDate })).json().map((r: any) => [r.nsu, r.installmentNumber]);
    // p2: 2027-01-05 + 30 = 2027-02-04 (Thu).
    expect(await by('2027-02-03', '2027-02-04')).toEqual([
      [p1.nsu, 1],
      [p2.nsu, 1],
    ]);
    expect(await by('2027-02-04', '2027-03-05')).toEqual([
      [p1.nsu, 2],
      [p2.nsu, 1],
    ]);
    expect(await by('2027-04-04', '2027-04-04')).toEqual([]);
    expect(await by('2027-04-05', '2027-04-05')).toEqual([[p1.nsu, 3]]);
  });

  it('search-by-auth-code: codAuth and operationDate, narrowed by value, installmentValue, installmentNumber', async () => {
    const base = { accountNumber: acct(), codAuth: p1.authorizationCode, operationDate: '2027-01-04' };
    const numbers = async (extra: Record<string, string | number>) =>
      (await search(t, m.integration, 'search-by-auth-code', { ...base, ...extra })).json().map((r: any) => r.installmentNumber);
    expect(await numbers({})).toEqual([1, 2, 3]);
    expect(await numbers({ value: '100.00' })).toEqual([1, 2, 3]);
    expect(await numbers({ value: '100.01' })).toEqual([]);
    expect(await numbers({ installmentValue: '33.33' })).toEqual([2, 3]);
    expect(await numbers({ installmentValue: '33.3400' })).toEqual([1]);
    expect(await numbers({ installmentNumber: 2 })).toEqual([2]);
    expect(await numbers({ value: 100, installmentValue: 33.33, installmentNumber: 3 })).toEqual([3]);
    expect(await numbers({ operationDate: '2027-01-05' })).toEqual([]);
    const bad = await search(t, m.integration, 'search-by-auth-code', { ...base, value: '1.00001', installmentValue: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()[0].tag).toBe('query.value');
    const missing = await search(t, m.integration, 'search-by-auth-code', { accountNumber: acct() });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().map((e: any) => e.tag).sort()).toEqual(['query.codAuth', 'query.operationDate']);
    const badDate = await search(t, m.integration, 'search-by-auth-code', { ...base, operationDate: '2027-02-30' });
    expect(badDate.json()).toEqual([{ tag: 'query.operationDate', description: expect.any(String) }]);
  });

  describe('date ranges, ownership and authentication', () => {
    const ranges = ['search-by-operation-date', 'search-by-operation-date-installments', 'search-by-payment-date'];
    for (const name of ranges) {
      it(`${name}: required parameters, startDate <= endDate, at most CONCIL_MAX_RANGE_DAYS (90 by default, as the contract says) days`, async () => {
        const s = (q: Record<string, string | number>) => search(t, m.integration, name, q);
        const missing = await s({});
        expect(missing.statusCode).toBe(400);
        expect(missing.json().map((e: any) => e.tag).sort()).toEqual(['query.accountNumber', 'query.endDate', 'query.startDate']);
        const inverted = await s({ accountNumber: acct(), startDate: '2027-02-01', endDate: '2027-01-31' });
        expect(inverted.statusCode).toBe(400);
        expect(inverted.json()).toEqual([{ tag: 'query.startDate', description: expect.any(String) }]);
        const tooLong = await s({ accountNumber: acct(), startDate: '2027-01-01', endDate: '2027-04-02' });
        expect(tooLong.statusCode).toBe(400);
        expect(tooLong.json()).toEqual([{ tag: 'query.endDate', description: expect.any(String) }]);
        expect(tooLong.json()[0].description).toContain('at most 90 days');
        expect((await s({ accountNumber: acct(), startDate: '2027-01-01', endDate: '2027-04-01' })).statusCode).toBe(200);
        const malformed = await s({ accountNumber: acct(), startDate: '04/01/2027', endDate: '2027-13-01' });
        expect(malformed.json().map((e: any) => e.tag)).toEqual(['query.startDate', 'query.endDate']);
        const foreign = await s({ accountNumber: other.accountNumber, startDate: '2027-01-01', endDate: '2027-01-31' });
        expect(foreign.statusCode).toBe(403);
        const bad = await s({ accountNumber: 'abc', startDate: '2027-01-01', endDate: '2027-01-31' });
        expect(bad.statusCode).toBe(400);
        expect(bad.json()[0].tag).toBe('query.accountNumber');
        expect((await search(t, {}, name, { accountNumber: acct(), startDate: '2027-01-01', endDate: '2027-01-31' })).statusCode).toBe(401);
        // A gateway token is not an integration token.
        expect((await search(t, m.headers, name, { accountNumber: acct(), startDate: '2027-01-01', endDate: '2027-01-31' })).statusCode).toBe(401);
      });
    }
  });

  it('cancel marks the installments C; they never settle', async () => {
    const p3 = await pay(t, m, { amount: 3000, installments: 2, reference: 'order-300' });
    const cancel = await t.inject({ method: 'POST', url: `/gateway/v1/payments/${p3.paymentId}/cancel`, headers: m.headers });
    expect(cancel.json().status).toBe('Canceled');
    const records = (await search(t, m.integration, 'search-by-code', { accountNumber: acct(), nsu: p3.nsu })).json();
    expect(records.map((r: any) => [r.installmentStatus, r.receivedStatus])).toEqual([
      ['C', 'A'],
      ['C', 'A'],
    ]);
    const summary = (await search(t, m.integration, 'search-by-operation-date', { accountNumber: acct(), startDate: '2027-01-05', endDate: '2027-01-05' })).json();
    expect(summary.find((s: any) => s.nsu === p3.nsu).transactionStatus).toBe('C');
  });

  it('Blocked: installments B, not settled on their date, released to A (and settled when already due)', async () => {
    const p4 = await pay(t, m, { amount: 5000, installments: 1, email: 'buyer@review.test', reference: 'order-400' });
    expect(p4.status).toBe('Blocked');
    const records = async () => (await search(t, m.integration, 'search-by-code', { accountNumber: acct(), nsu: p4.nsu })).json();
    expect((await records())[0]).toMatchObject({ installmentStatus: 'B', receivedStatus: 'A', receivedDateForeast: '2027-02-04T00:00:00.000Z' });
    const p3 = (await search(t, m.integration, 'search-by-operation-date', { accountNumber: acct(), startDate: '2027-01-05', endDate: '2027-01-05' })).json();
    const canceled = p3.find((s: any) => s.transactionReference === 'order-300');

    // Settlement day of installment 1 of p1 and of p2 and p4.
    await advanceTo(t, '2027-02-04T06:00:00.000Z');
    expect((await records())[0]).toMatchObject({ installmentStatus: 'B', receivedStatus: 'A', receivedDateEffective: null });
    const byCode = (await search(t, m.integration, 'search-by-code', { accountNumber: acct(), nsu: p1.nsu })).json();
    expect(byCode.map((r: any) => [r.receivedStatus, r.receivedDateEffective])).toEqual([
      ['P', '2027-02-03T00:00:00.000Z'],
      ['A', null],
      ['A', null],
    ]);
    const p2rec = (await search(t, m.integration, 'search-by-code', { accountNumber: acct(), nsu: p2.nsu })).json()[0];
    expect(p2rec).toMatchObject({ receivedStatus: 'P', receivedDateEffective: '2027-02-04T00:00:00.000Z' });
    expect((await search(t, m.integration, 'search-by-code', { accountNumber: acct(), nsu: canceled.nsu })).json()[0].receivedStatus).toBe('A');

    await advanceTo(t, '2027-02-05T10:00:00.000Z');
    const review = await t.inject({ method: 'POST', url: `/admin/payments/${p4.paymentId}/review`, headers: t.adminHeaders, payload: { decision: 'approve' } });
    // Released after its date: it settles in the release transaction, so the answer already reads Paid.
    expect(review.json().status).toBe('Paid');
    // Released after its date: it settles at once, on the release date. A single installment -> Paid.
    expect((await records())[0]).toMatchObject({ installmentStatus: 'A', receivedStatus: 'P', receivedDateEffective: '2027-02-05T00:00:00.000Z' });
    const got = await t.inject({ method: 'GET', url: `/gateway/v1/payments/${p4.paymentId}`, headers: m.headers });
    expect(got.json().status).toBe('Paid');
  });

  it('settlement: received installments move in search-by-payment-date; all received -> Paid with its event', async () => {
    // p2 (1 installment) was fully received on 2027-02-04.
    const p2got = await t.inject({ method: 'GET', url: `/gateway/v1/payments/${p2.paymentId}`, headers: m.headers });
    expect(p2got.json().status).toBe('Paid');
    await advanceTo(t, '2027-04-05T06:00:00.000Z');
    const records = (await search(t, m.integration, 'search-by-code', { accountNumber: acct(), nsu: p1.nsu })).json();
    expect(records.map((r: any) => r.receivedDateEffective)).toEqual(['2027-02-03T00:00:00.000Z', '2027-03-05T00:00:00.000Z', '2027-04-05T00:00:00.000Z']);
    expect(records.every((r: any) => r.receivedStatus === 'P')).toBe(true);
    const got = await t.inject({ method: 'GET', url: `/gateway/v1/payments/${p1.paymentId}`, headers: m.headers });
    expect(got.json().status).toBe('Paid');
    const events = await t.ctx.database.db.selectFrom('payment_events').select(['old_status', 'new_status', 'occurred_at']).where('payment_id', '=', p1.paymentId).orderBy('id').execute();
    expect(events).toEqual([
      { old_status: '', new_status: 'Authorized', occurred_at: expect.stringMatching(/^2027-01-04T12:00/) },
      { old_status: 'Authorized', new_status: 'Paid', occurred_at: '2027-04-05T00:00:00.000Z' },
    ]);
    const byPayment = (await search(t, m.integration, 'search-by-payment-date', { accountNumber: acct(), startDate: '2027-03-05', endDate: '2027-03-05' })).json();
    expect(byPayment.map((r: any) => [r.nsu, r.installmentNumber])).toEqual([[p1.nsu, 2]]);
    // One sweep job per settlement day, not per installment.
    const sweeps = await t.ctx.database.db.selectFrom('jobs').select('dedupe_key').where('kind', '=', 'settlement.sweep').execute();
    expect(sweeps.length).toBeLessThanOrEqual(6);
  });
});
