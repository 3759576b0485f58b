import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICING, installmentAmounts } from '../../src/domain/fees.js';
import { saleSplitBases, saleSplitShares, splitBase, splitShare } from '../../src/domain/split.js';

describe('split shares', () => {
  it('base x percent (2 decimals) / 100, half-up, in the base unit: cents', () => {
    expect(splitShare(10000n, 3333n)).toBe(3333n);
    expect(splitShare(1001n, 5000n)).toBe(501n); // 500.5 -> 501
    expect(splitShare(999n, 10000n)).toBe(999n);
    expect(splitShare(12345n, 0n)).toBe(0n);
  });

  it('the same rule in ten-thousandths (10,4): bruto on the installment value, liquido on the received value', () => {
    expect(splitShare(333400n, 1000n)).toBe(33340n); // bruto 10 % of 33.34 = 3.3340
    expect(splitShare(320930n, 1250n)).toBe(40116n); // liquido 12.5 % of 32.0930 = 4.011625 -> 4.0116
    expect(splitShare(320835n, 1250n)).toBe(40104n); // 4.0104375 -> 4.0104
    expect(splitShare(468000n, 3333n)).toBe(155984n); // 33.33 % of 46.80 = 15.59844 -> 15.5984
    expect(splitShare(5n, 5000n)).toBe(3n); // 50 % of 0.0005 = 0.00025 -> 0.0003 (half away from zero)
  });

  it('bruto takes the gross base, liquido the net', () => {
    const bases = { gross: 10000n, net: 9626n };
    expect(splitBase('bruto', bases)).toBe(10000n);
    expect(splitBase('liquido', bases)).toBe(9626n);
  });

  it("a sale's bases in cents: the amount, and its net of MDR (rounded to the cent on the whole amount) and fees, never below 0", () => {
    // R$ 100.00 in 3 at 3.49 % = 3.49, minus 0.10 and 0.15 -> 96.26
    expect(saleSplitBases(DEFAULT_PRICING, 10000n, 3)).toEqual({ gross: 10000n, net: 9626n });
    // R$ 1.00 at 2.99 % = 0.0299 -> 0.03; 1.00 - 0.03 - 0.25 = 0.72
    expect(saleSplitBases(DEFAULT_PRICING, 100n, 1)).toEqual({ gross: 100n, net: 72n });
    expect(saleSplitBases(DEFAULT_PRICING, 20n, 1)).toEqual({ gross: 20n, net: 0n });
  });

  it("a sale's shares in cents, in the order given: bruto on the amount, liquido on its net", () => {
    // R$ 100.00 in 3: 10 % of 100.00 = 10.00; 12.5 % of 96.26 = 12.0325 -> 12.03
    expect(saleSplitShares([{ type: 'bruto', percent: 1000n }, { type: 'liquido', percent: 1250n }], 10000n, 3, DEFAULT_PRICING)).toEqual([1000n, 1203n]);
    expect(saleSplitShares([], 10000n, 3, DEFAULT_PRICING)).toEqual([]);
  });
});

/*
 * A payment's share (what integrators see in the payment answer) and a conciliation
 * installment's share take different bases and round in different units, so for one sale they
 * need not add up. Both are pinned as they are.
 */
describe('a payment share against the installment shares of the same sale', () => {
  const installmentShares = (amountCents: bigint, n: number, mdr: bigint, type: 'bruto' | 'liquido', pct: bigint) =>
    installmentAmounts(amountCents, n, mdr, DEFAULT_PRICING.transactionFee, DEFAULT_PRICING.antifraudFee).map((a) =>
      splitShare(splitBase(type, { gross: a.installmentValue, net: a.net }), pct),
    );
  const paymentShare = (amountCents: bigint, n: number, type: 'bruto' | 'liquido', pct: bigint) =>
    splitShare(splitBase(type, saleSplitBases(DEFAULT_PRICING, amountCents, n)), pct);

  it('R$ 100.00 in 3 at 3.49 %, liquido 12.5 %: the payment says 12.03, the installments 12.0324', () => {
    expect(paymentShare(10000n, 3, 'liquido', 1250n)).toBe(1203n); // 12.5 % of 96.26 = 12.0325 -> 12.03
    expect(installmentShares(10000n, 3, 34900n, 'liquido', 1250n)).toEqual([40116n, 40104n, 40104n]); // 12.0324
    // bruto agrees: 10 % of 100.00 = 10.00 = 3.3340 + 3.3330 + 3.3330
    expect(paymentShare(10000n, 3, 'bruto', 1000n)).toBe(1000n);
    expect(installmentShares(10000n, 3, 34900n, 'bruto', 1000n)).toEqual([33340n, 33330n, 33330n]);
  });

  it('R$ 1.00 at 2.99 %, liquido 50 %: MDR to the cent on the sale (0.36) against 4 decimals on the installment (0.3601)', () => {
    expect(paymentShare(100n, 1, 'liquido', 5000n)).toBe(36n); // 50 % of 0.72
    expect(installmentShares(100n, 1, 29900n, 'liquido', 5000n)).toEqual([3601n]); // 50 % of 0.7201 = 0.36005 -> 0.3601
  });
});
