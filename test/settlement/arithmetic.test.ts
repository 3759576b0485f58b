import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICING, type Pricing } from '../../src/domain/fees.js';
import { buildReceivables, conciliationCardNumber, expectedDate, type Sale } from '../../src/modules/settlement/receivables.js';

// 10,4 values are integers in ten-thousandths of a real: 480000n = R$ 48.0000. Percents: 40000n = 4 %.
describe('conciliation arithmetic (10,4, half-up)', () => {
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
    const { d4 } = await import('../../src/modules/settlement/conciliation-json.js');
    const { toJsonNumber } = await import('../../src/domain/money.js');
    const values = [0, 1, 5, 9999, 10000, 320835, 333400, 9_999_999_999, 1_234_567_891, -320835];
    for (let i = 0; i < 20_000; i++) values.push(Math.floor(Math.random() * 10_000_000_000));
    for (const v of values) expect(d4(v)).toBe(toJsonNumber(BigInt(v), 4));
  });
});
