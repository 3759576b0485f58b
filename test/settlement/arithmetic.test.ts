import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICING, installmentAmounts, prepaymentCost, splitShare, type Pricing } from '../../src/domain/fees.js';
import { buildReceivables, conciliationCardNumber, expectedDate, type Sale } from '../../src/modules/settlement/receivables.js';

// 10,4 values are integers in ten-thousandths of a real: 480000n = R$ 48.0000. Percents: 40000n = 4 %.
describe('conciliation arithmetic (10,4, half-up)', () => {
  it('prepayment reference vector: 150.00 in 3, MDR 4 %, 2.5 % a month, 30/60/90 days early -> 46.80, 45.60, 44.40', () => {
    const parts = installmentAmounts(15000n, 3, 40000n, 0n, 0n);
    expect(parts.map((p) => [p.installmentValue, p.mdrValue, p.net])).toEqual([
      [500000n, 20000n, 480000n],
      [500000n, 20000n, 480000n],
      [500000n, 20000n, 480000n],
    ]);
    const received = parts.map((p, i) => p.net - prepaymentCost(p.net, 25000n, 30 * (i + 1)));
    expect(received).toEqual([468000n, 456000n, 444000n]);
    expect(received.reduce((a, b) => a + b)).toBe(1368000n);
    expect(prepaymentCost(480000n, 25000n, 0)).toBe(0n);
  });

  it('installment values carry the leftover cent on installment 1; MDR per installment; fees spread with leftover on 1', () => {
    // R$ 100.00 in 3 at 3.49 %, fees 0.10 + 0.15: see test/settlement/conciliation.test.ts for the worked numbers.
    const parts = installmentAmounts(10000n, 3, 34900n, 10n, 15n);
    expect(parts).toEqual([
      { installmentValue: 333400n, mdrValue: 11636n, trnFee: 334n, antifraudFee: 500n, net: 320930n },
      { installmentValue: 333300n, mdrValue: 11632n, trnFee: 333n, antifraudFee: 500n, net: 320835n },
      { installmentValue: 333300n, mdrValue: 11632n, trnFee: 333n, antifraudFee: 500n, net: 320835n },
    ]);
    // Half-up at the 5th decimal: 12.35 x 2.99 % = 0.369265 -> 0.3693; the net never goes below 0.
    expect(installmentAmounts(1235n, 1, 29900n, 0n, 0n)[0].mdrValue).toBe(3693n);
    expect(installmentAmounts(1n, 2, 29900n, 10n, 15n).map((p) => p.net)).toEqual([0n, 0n]);
  });

  it('split vectors: bruto on the installment value, liquido on the received value', () => {
    expect(splitShare(333400n, 1000n)).toBe(33340n); // bruto 10 % of 33.34 = 3.3340
    expect(splitShare(320930n, 1250n)).toBe(40116n); // liquido 12.5 % of 32.0930 = 4.011625 -> 4.0116
    expect(splitShare(320835n, 1250n)).toBe(40104n); // 4.0104375 -> 4.0104
    expect(splitShare(468000n, 3333n)).toBe(155984n); // 33.33 % of 46.80 = 15.59844 -> 15.5984
    expect(splitShare(5n, 5000n)).toBe(3n); // 50 % of 0.0005 = 0.00025 -> 0.0003 (half away from zero)
  });

  it('conciliation cardNumber from the 6+4 mask: first 4 + 7 * + last 4', () => {
    expect(conciliationCardNumber('411111******1111')).toBe('4111*******1111');
    expect(conciliationCardNumber('378282*****0005')).toBe('3782*******0005');
  });

  it('expected dates: D+30 x n for credit, D+0 for Pix, moved to the next business day', () => {
    const card = { sourceType: 'card' } as const;
    expect(expectedDate(card, '2027-01-09', 1)).toBe('2027-02-10'); // Carnival Mon 02-08 and Tue 02-09
    expect(expectedDate(card, '2027-02-24', 1)).toBe('2027-03-29'); // Good Friday 03-26, then the weekend
    expect(expectedDate(card, '2028-11-25', 1)).toBe('2028-12-26'); // Christmas, a Monday in 2028
    expect(expectedDate(card, '2027-04-02', 1)).toBe('2027-05-03'); // Sunday 05-02
    expect(expectedDate(card, '2027-01-04', 3)).toBe('2027-04-05'); // D+90 on a Sunday
    expect(expectedDate({ sourceType: 'pix' }, '2027-04-21', 1)).toBe('2027-04-22'); // Tiradentes
    expect(expectedDate({ sourceType: 'pix' }, '2027-04-20', 1)).toBe('2027-04-20');
  });

  it('automatic prepayment: every installment anticipated to the next business day, type E', () => {
    const pricing: Pricing = { ...DEFAULT_PRICING, mdr: { ...DEFAULT_PRICING.mdr, credit2to6: 40000n }, transactionFee: 0n, antifraudFee: 0n, prepayment: { monthlyRate: 25000n, automatic: true } };
    const sale: Sale = {
      sourceType: 'card',
      sourceId: 'p',
      merchantId: 'm',
      accountNumber: 1,
      transactionAt: '2027-04-05T10:00:00.000Z',
      cardNumber: '4111*******1111',
      cardName: 'VISA',
      codAuth: 'ABC123',
      nsu: '1',
      reference: null,
      amountCents: 15000n,
      installments: 3,
      splits: [],
      status: 'A',
    };
    // Sale Monday 2027-04-05 -> anticipated to Tue 04-06; regular dates 05-05, 06-04, 07-05 (07-04 is a Sunday):
    // 29, 59 and 90 days early at 0.04 a day on 48.00 -> 1.16, 2.36, 3.60.
    const rows = buildReceivables(sale, pricing);
    expect(rows.map((r) => [r.received_type, r.expected_date, r.prepayment_value, r.prepayment_tax, r.received_value])).toEqual([
      ['E', '2027-04-06', 11600, 25000, 468400],
      ['E', '2027-04-06', 23600, 25000, 456400],
      ['E', '2027-04-06', 36000, 25000, 444000],
    ]);
    // Without automatic prepayment: regular, no discount.
    const regular = buildReceivables(sale, { ...pricing, prepayment: { monthlyRate: 25000n, automatic: false } });
    expect(regular.map((r) => [r.received_type, r.expected_date, r.prepayment_value, r.received_value])).toEqual([
      ['R', '2027-05-05', 0, 480000],
      ['R', '2027-06-04', 0, 480000],
      ['R', '2027-07-05', 0, 480000],
    ]);
  });
});

describe('record numbers', () => {
  it('d4 (v / 10000) is the same float as the exact decimal text, over random and edge values', async () => {
    const { d4 } = await import('../../src/modules/settlement/records.js');
    const { toJsonNumber } = await import('../../src/domain/money.js');
    const values = [0, 1, 5, 9999, 10000, 320835, 333400, 9_999_999_999, 1_234_567_891, -320835];
    for (let i = 0; i < 20_000; i++) values.push(Math.floor(Math.random() * 10_000_000_000));
    for (const v of values) expect(d4(v)).toBe(toJsonNumber(BigInt(v), 4));
  });
});
