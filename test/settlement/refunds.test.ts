import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { advanceTo, pay, search, settlementMerchant } from './support.js';

type Merchant = Awaited<ReturnType<typeof settlementMerchant>>;

/**
 * The money of a refund in conciliation, default pricing (MDR 1x 2.99 %, 2-6x 3.49 %,
 * transaction fee R$ 0.10, anti-fraud fee R$ 0.15), sales on Monday 2027-01-04:
 * - open installments are reduced in proportion to their values, each MDR recomputed on its new
 *   value (the refunded part's MDR is returned), the fees kept, splits following in proportion;
 * - what was already paid to the merchant is debited against its next receivables: a record of
 *   the sale with installmentNumber 0, receivedType D and negative values, settled on that day.
 */
describe(`refunds in conciliation (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
    await advanceTo(t, '2027-01-04T12:00:00.000Z');
  });
  afterAll(() => t.close());

  const refund = (m: Merchant, paymentId: string, amount?: number) =>
    t.inject({ method: 'POST', url: `/gateway/v1/payments/${paymentId}/refunds`, headers: m.headers, payload: amount === undefined ? {} : { amount } });
  const records = async (m: Merchant, p: { nsu: string }) => {
    const res = await search(t, m.integration, 'search-by-code', { accountNumber: m.accountNumber, nsu: p.nsu });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const payment = async (m: Merchant, paymentId: string) => (await t.inject({ method: 'GET', url: `/gateway/v1/payments/${paymentId}`, headers: m.headers })).json();

  it('reduces the open installments pro rata: values, MDR on the new value, fees kept, splits in proportion', async () => {
    const m = await settlementMerchant(t);
    const sale = await pay(t, m, {
      amount: 15000,
      installments: 3,
      splits: [
        { documentNumberBeneficiary: '52998224725', percent: 10, type: 'bruto' },
        { documentNumberBeneficiary: '11222333000181', percent: 12.5, type: 'liquido' },
      ],
    });
    expect((await refund(m, sale.paymentId, 4500)).json().status).toBe('Succeeded');
    const after = await records(m, sale);
    // 50.00 - 15.00 = 35.00 each; MDR 35.00 x 3.49 % = 1.2215; fees 0.0334/0.0333/0.0333 and 0.05 as at the sale.
    expect(after.map((r: any) => [r.installmentNumber, r.installmentValue, r.discountMdrValue, r.discountTrnRateInstalmentValue, r.discountAntifraudRateInstalmentValue, r.receivedValue])).toEqual([
      [1, 35, 1.2215, 0.0334, 0.05, 33.6951],
      [2, 35, 1.2215, 0.0333, 0.05, 33.6952],
      [3, 35, 1.2215, 0.0333, 0.05, 33.6952],
    ]);
    expect(after.every((r: any) => r.transactionTotalValue === 150 && r.installmentStatus === 'A' && r.receivedType === 'R')).toBe(true);
    // bruto 10 % of 35.00; liquido 12.5 % of 33.6951 = 4.2118875 -> 4.2119 and of 33.6952 = 4.2119.
    expect(after.map((r: any) => r.splits.map((s: any) => [s.valorBaseSplit, s.valorSplit]))).toEqual([
      [[35, 3.5], [33.6951, 4.2119]],
      [[35, 3.5], [33.6952, 4.2119]],
      [[35, 3.5], [33.6952, 4.2119]],
    ]);

    // Uneven: 0.01 more goes to the installment with the largest remainder (all equal here: the first).
    expect((await refund(m, sale.paymentId, 1)).json().status).toBe('Succeeded');
    expect((await records(m, sale)).map((r: any) => r.installmentValue)).toEqual([34.99, 35, 35]);
    expect(await payment(m, sale.paymentId)).toMatchObject({ status: 'Authorized', refundedAmount: 4501 });
  });

  it('debits what was already received against the next receivables; the debit stays when the sale is then cancelled', async () => {
    const m = await settlementMerchant(t);
    // Another sale of the account, due later than this one's second installment: not where the debit goes.
    const later = await pay(t, m, { amount: 3000, installments: 3 });
    const sale = await pay(t, m, { amount: 10000, installments: 2 });
    // Installment 1 (D+30, Wed 2027-02-03) is received; installment 2 (D+60, Fri 2027-03-05) is open.
    await advanceTo(t, '2027-02-03T12:00:00.000Z');
    expect((await records(m, sale)).map((r: any) => r.receivedStatus)).toEqual(['P', 'A']);

    expect((await refund(m, sale.paymentId, 7000)).json().status).toBe('Succeeded');
    let rows = await records(m, sale);
    // Debit of 20.00 (70.00 less the 50.00 still open), MDR 20.00 x 3.49 % = 0.698 returned.
    expect(rows.map((r: any) => [r.installmentNumber, r.installmentValue, r.discountMdrValue, r.receivedValue, r.receivedType, r.receivedStatus, r.installmentStatus])).toEqual([
      [0, -20, -0.698, -19.302, 'D', 'A', 'A'],
      [1, 50, 1.745, 48.13, 'R', 'P', 'A'],
      [2, 0, 0, 0, 'R', 'A', 'A'],
    ]);
    // Due with the account's next receipt (this sale's installment 2, before the other sale's).
    expect(rows[0]).toMatchObject({ receivedDateForeast: '2027-03-05T00:00:00.000Z', receivedDateEffective: null, discountTrnRateInstalmentValue: 0, transactionTotalValue: 100 });
    expect(rows[0].nsu).toBe(sale.nsu);

    // A prepayment of everything anticipates installments, never a debit.
    const prepaid = await t.inject({ method: 'POST', url: `/integration/api/prepayments?accountNumber=${m.accountNumber}`, headers: m.integration, payload: { all: true } });
    expect(prepaid.statusCode, prepaid.body).toBe(200);
    expect(prepaid.json().items.every((r: any) => r.installmentNumber > 0)).toBe(true);
    expect((await records(m, sale))[0]).toEqual(rows[0]);

    // The rest, 30.00: nothing open is left to reduce, so all of it is a debit; the sale is refunded in full.
    expect((await refund(m, sale.paymentId)).json()).toMatchObject({ amount: 3000, status: 'Succeeded' });
    expect(await payment(m, sale.paymentId)).toMatchObject({ status: 'Canceled', refundedAmount: 10000 });
    rows = await records(m, sale);
    expect(rows.map((r: any) => [r.installmentNumber, r.installmentValue, r.receivedValue, r.installmentStatus])).toEqual([
      [0, -20, -19.302, 'A'],
      [0, -30, -28.953, 'A'],
      [1, 50, 48.13, 'C'],
      [2, 0, 0, 'C'],
    ]);
    // The prepayment moved installment 2 to the next business day: that is now the next receipt, where this debit goes.
    expect(rows.map((r: any) => r.receivedDateForeast.slice(0, 10))).toEqual(['2027-03-05', '2027-02-04', '2027-02-03', '2027-02-04']);

    // The sweep settles each debit on its day with the day's receipts (the payment stays Canceled).
    await advanceTo(t, '2027-03-05T12:00:00.000Z');
    const byDay = (await search(t, m.integration, 'search-by-payment-date', { accountNumber: m.accountNumber, startDate: '2027-02-04', endDate: '2027-03-05' })).json();
    const debits = byDay.filter((r: any) => r.transactionPaymentIdWeb === sale.paymentId && r.installmentNumber === 0);
    expect(debits.map((r: any) => [r.receivedValue, r.receivedStatus, r.receivedDateEffective])).toEqual([
      [-19.302, 'P', '2027-03-05T00:00:00.000Z'],
      [-28.953, 'P', '2027-02-04T00:00:00.000Z'],
    ]);
    expect((await payment(m, sale.paymentId)).status).toBe('Canceled');
    expect((await records(m, later)).every((r: any) => r.installmentStatus === 'A')).toBe(true);
  });

  it('a Paid payment refunded in full: the whole amount less its MDR is debited on the next business day when nothing else is due', async () => {
    const m = await settlementMerchant(t);
    const sale = await pay(t, m, { amount: 5000, installments: 1 });
    const paidOn = new Date(Date.parse(sale.createdAt) + 40 * 86_400_000).toISOString();
    await advanceTo(t, paidOn);
    expect((await payment(m, sale.paymentId)).status).toBe('Paid');
    expect((await refund(m, sale.paymentId)).json()).toMatchObject({ amount: 5000, status: 'Succeeded' });
    const rows = await records(m, sale);
    // 50.00 at 2.99 %: MDR 1.495 returned.
    expect(rows.map((r: any) => [r.installmentNumber, r.installmentValue, r.discountMdrValue, r.receivedValue, r.receivedType, r.installmentStatus])).toEqual([
      [0, -50, -1.495, -48.505, 'D', 'A'],
      [1, 50, 1.495, 48.255, 'R', 'C'],
    ]);
    expect(rows[0].receivedDateForeast > paidOn.slice(0, 10)).toBe(true);
    expect(await payment(m, sale.paymentId)).toMatchObject({ status: 'Canceled', refundedAmount: 5000 });
  });
});
