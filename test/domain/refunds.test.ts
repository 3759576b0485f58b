import { describe, expect, it } from 'vitest';
import { installmentAmounts } from '../../src/domain/fees.js';
import { chargebackDebitOf, debitOf, prorate, reduceInstallment } from '../../src/domain/refunds.js';

describe('refund arithmetic', () => {
  it('prorates in proportion to the values, the leftover units to the largest remainders', () => {
    expect(prorate(4000n, [12000n])).toEqual([4000n]);
    // R$ 100.00 over 3334 + 3333 + 3333: 3333.33.. each, the leftover cent to the first (its remainder is the largest).
    expect(prorate(10000n, [3334n, 3333n, 3333n])).toEqual([3334n, 3333n, 3333n]);
    expect(prorate(100n, [3334n, 3333n, 3333n])).toEqual([34n, 33n, 33n]);
    // Equal remainders: the earlier installment first.
    expect(prorate(1n, [5n, 5n])).toEqual([1n, 0n]);
    expect(prorate(3n, [2n, 2n, 2n])).toEqual([1n, 1n, 1n]);
    expect(prorate(0n, [10n, 20n])).toEqual([0n, 0n]);
  });

  it('never gives a share above its value, and the shares always add up to the amount (below the total)', () => {
    for (let amount = 0n; amount <= 60n; amount++) {
      const values = [7n, 0n, 31n, 22n];
      const shares = prorate(amount, values);
      expect(shares.reduce((a, b) => a + b, 0n)).toBe(amount);
      shares.forEach((s, i) => expect(s >= 0n && s <= values[i]).toBe(true));
    }
  });

  it('covers every value when the amount reaches the total (the rest is the caller\'s debit)', () => {
    expect(prorate(100n, [30n, 20n])).toEqual([30n, 20n]);
    expect(prorate(50n, [30n, 20n])).toEqual([30n, 20n]);
    expect(prorate(5n, [])).toEqual([]);
    expect(() => prorate(-1n, [1n])).toThrow(RangeError);
  });

  it('reduces an installment: MDR recomputed on the new value (the refunded part\'s is returned), fees kept', () => {
    // R$ 120.00 in 1 at 2.99 %, fees R$ 0.10 + 0.15; R$ 40.00 refunded.
    const [sale] = installmentAmounts(12000n, 1, 29900n, 10n, 15n);
    const open = { installmentValue: sale.installmentValue, mdrValue: sale.mdrValue, mdrRate: 29900n, trnFee: sale.trnFee, antifraudFee: sale.antifraudFee, prepaymentValue: 0n };
    expect(reduceInstallment(open, 400000n)).toEqual({ installmentValue: 800000n, mdrValue: 23920n, prepaymentValue: 0n, receivedValue: 800000n - 23920n - 2500n });
    // Refunded in full: nothing left to receive, and a net below zero counts as zero (as at the sale).
    expect(reduceInstallment(open, 1200000n)).toEqual({ installmentValue: 0n, mdrValue: 0n, prepaymentValue: 0n, receivedValue: 0n });
    expect(() => reduceInstallment(open, 1200001n)).toThrow(RangeError);
  });

  it('shrinks a prepayment discount with the net it was taken on', () => {
    const open = { installmentValue: 500000n, mdrValue: 20000n, mdrRate: 40000n, trnFee: 0n, antifraudFee: 0n, prepaymentValue: 12000n };
    // Half refunded: net 480000 -> 240000, discount 12000 -> 6000.
    expect(reduceInstallment(open, 250000n)).toEqual({ installmentValue: 250000n, mdrValue: 10000n, prepaymentValue: 6000n, receivedValue: 234000n });
  });

  it('debits what the open installments could not cover, less its MDR', () => {
    expect(debitOf(400000n, 29900n)).toEqual({ installmentValue: -400000n, mdrValue: -11960n, receivedValue: -388040n });
    expect(() => debitOf(0n, 29900n)).toThrow(RangeError);
  });

  it('debits a chargeback less what the cancelled installments forgo, returning no MDR', () => {
    expect(chargebackDebitOf(1_000_000n, 481_300n)).toEqual({ installmentValue: -518_700n, mdrValue: 0n, receivedValue: -518_700n });
    expect(chargebackDebitOf(200_000n, 0n)).toEqual({ installmentValue: -200_000n, mdrValue: 0n, receivedValue: -200_000n });
    // Nothing received yet and all of it cancelled: nothing to debit.
    expect(chargebackDebitOf(500_000n, 500_000n)).toBeNull();
    expect(() => chargebackDebitOf(0n, 0n)).toThrow(RangeError);
  });
});
