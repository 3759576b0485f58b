import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crc16, parseTlv } from '../../src/domain/pix.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { advanceTo, search, settlementMerchant } from './support.js';

const CHARGES = '/gateway/v1/pix/charges';

describe(`Pix charges end to end through the sandbox (${testDialect})`, () => {
  let t: TestApp;
  let m: Awaited<ReturnType<typeof settlementMerchant>>;
  let other: Awaited<ReturnType<typeof settlementMerchant>>;
  beforeAll(async () => {
    t = await testApp();
    m = await settlementMerchant(t);
    other = await settlementMerchant(t);
  });
  afterAll(() => t.close());

  const create = (payload: object, headers = m.headers) => t.inject({ method: 'POST', url: CHARGES, headers, payload });
  const payCharge = (id: string) => t.inject({ method: 'POST', url: `/sandbox/pix/${id}/pay`, headers: t.adminHeaders });

  it('creates a Pending charge with a valid dynamic BR Code', async () => {
    const res = await create({ amount: 12345, description: 'Pedido 77', referenceTransaction: 'pix-77' });
    expect(res.statusCode).toBe(201);
    const charge = res.json();
    expect(charge).toMatchObject({ status: 'Pending', amount: 12345, referenceTransaction: 'pix-77', paidAt: null });
    expect(charge.txid).toMatch(/^[a-zA-Z0-9]{26,35}$/);
    expect(Date.parse(charge.expiresAt) - Date.parse(charge.createdAt)).toBe(3600_000);
    const emv: string = charge.pixEmv;
    expect(emv.slice(-4)).toBe(crc16(emv.slice(0, -4)));
    const fields = Object.fromEntries(parseTlv(emv)!.map((f) => [f.id, f.value]));
    expect(fields).toMatchObject({ '00': '01', '01': '12', '52': '0000', '53': '986', '54': '123.45', '58': 'BR', '59': 'LOJA TESTE' });
    const account = Object.fromEntries(parseTlv(fields['26'])!.map((f) => [f.id, f.value]));
    expect(account['00']).toBe('br.gov.bcb.pix');
    expect(account['25']).toContain(charge.txid);
    expect(parseTlv(fields['62'])).toEqual([{ id: '05', value: charge.txid }]);
    const got = await t.inject({ method: 'GET', url: `${CHARGES}/${charge.id}`, headers: m.headers });
    expect(got.json()).toEqual(charge);
    expect((await t.inject({ method: 'GET', url: `${CHARGES}/${charge.id}`, headers: other.headers })).statusCode).toBe(404);
  });

  it('validates the body', async () => {
    const bad = await create({ amount: 0, expiresIn: 10 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().map((e: any) => e.tag).sort()).toEqual(['amount', 'expiresIn']);
    expect((await t.inject({ method: 'POST', url: CHARGES, payload: { amount: 100 } })).statusCode).toBe(401);
  });

  it('pays through the sandbox: Paid, one D+0 instant-payment record with the Pix MDR, received at once', async () => {
    // Tuesday 2027-03-02 10:00 UTC, default pricing: Pix MDR 0.99 %, transaction fee 0.10, no anti-fraud fee.
    await advanceTo(t, '2027-03-02T10:00:00.000Z');
    const charge = (await create({ amount: 10000, referenceTransaction: 'pix-1' })).json();
    const paid = await payCharge(charge.id);
    expect(paid.statusCode).toBe(200);
    expect(paid.json()).toMatchObject({ status: 'Paid', paidAt: expect.stringMatching(/^2027-03-02T10:00/) });
    expect((await payCharge(charge.id)).statusCode).toBe(409);
    const records = (await search(t, m.integration, 'search-by-operation-date-installments', { accountNumber: m.accountNumber, startDate: '2027-03-02', endDate: '2027-03-02' })).json();
    expect(records).toHaveLength(1);
    const nsu = records[0].nsu;
    expect(nsu).toMatch(/^\d+$/);
    expect(records[0].codAuth).toMatch(/^[A-Z0-9]{6}$/);
    // 100.00 x 0.99 % = 0.99; received 100.00 - 0.99 - 0.10 = 98.91, the same day.
    expect(records[0]).toEqual({
      transactionDate: paid.json().paidAt,
      terminal: `EC${m.accountNumber}`,
      cardNumber: null,
      cardType: 'instant payment',
      cardName: 'PIX',
      codAuth: records[0].codAuth,
      nsu,
      installmentNumber: 1,
      installmentsCount: 1,
      installmentValue: 100,
      transactionTotalValue: 100,
      installmentStatus: 'A',
      discountMdrValue: 0.99,
      discountMdrTax: 0.99,
      discountTrnRateInstalmentValue: 0.1,
      discountTrnRateTransactionValue: 0.1,
      discountAntifraudRateInstalmentValue: 0,
      discountAntifraudRateTransactionValue: 0,
      discountAntecipationValue: 0,
      discountAntecipationTax: 0,
      receivedValue: 98.91,
      receivedDateForeast: '2027-03-02T00:00:00.000Z',
      receivedDateEffective: '2027-03-02T00:00:00.000Z',
      receivedType: 'R',
      receivedStatus: 'P',
      transactionReference: 'pix-1',
      transactionPaymentIdWeb: charge.id,
    });
    const summary = (await search(t, m.integration, 'search-by-operation-date', { accountNumber: m.accountNumber, startDate: '2027-03-02', endDate: '2027-03-02' })).json();
    expect(summary).toEqual([expect.objectContaining({ cardType: 'instant payment', cardName: 'PIX', installments: 1, amount: 100, transactionStatus: 'A', transactionPaymentIdWeb: charge.id })]);
    expect((await search(t, m.integration, 'search-by-code', { accountNumber: m.accountNumber, nsu })).json()).toHaveLength(1);
  });

  it('a Pix paid on a Saturday is received on Monday', async () => {
    await advanceTo(t, '2027-03-06T12:00:00.000Z');
    const charge = (await create({ amount: 500 })).json();
    await payCharge(charge.id);
    const records = (await search(t, m.integration, 'search-by-operation-date-installments', { accountNumber: m.accountNumber, startDate: '2027-03-06', endDate: '2027-03-06' })).json();
    expect(records[0]).toMatchObject({ receivedDateForeast: '2027-03-08T00:00:00.000Z', receivedStatus: 'A' });
    await advanceTo(t, '2027-03-08T02:00:00.000Z');
    const after = (await search(t, m.integration, 'search-by-payment-date', { accountNumber: m.accountNumber, startDate: '2027-03-08', endDate: '2027-03-08' })).json();
    expect(after[0]).toMatchObject({ receivedStatus: 'P', receivedDateEffective: '2027-03-08T00:00:00.000Z' });
  });

  it('an unpaid charge expires by job and can no longer be paid', async () => {
    const charge = (await create({ amount: 700, expiresIn: 120 })).json();
    await advanceTo(t, new Date(Date.parse(charge.expiresAt) + 1000).toISOString());
    const got = (await t.inject({ method: 'GET', url: `${CHARGES}/${charge.id}`, headers: m.headers })).json();
    expect(got.status).toBe('Expired');
    const pay = await payCharge(charge.id);
    expect(pay.statusCode).toBe(409);
    expect((await payCharge('00000000-0000-0000-0000-000000000000')).statusCode).toBe(404);
  });
});
