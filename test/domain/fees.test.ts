import { describe, expect, it } from 'vitest';
import { creditMdr, creditNetCents, DEFAULT_PRICING, installmentAmounts, prepaymentCost } from '../../src/domain/fees.js';

describe('fees', () => {
  it('chooses the MDR band by installment count', () => {
    expect(creditMdr(DEFAULT_PRICING, 1)).toBe(29900n);
    expect(creditMdr(DEFAULT_PRICING, 2)).toBe(34900n);
    expect(creditMdr(DEFAULT_PRICING, 6)).toBe(34900n);
    expect(creditMdr(DEFAULT_PRICING, 7)).toBe(39900n);
    expect(creditMdr(DEFAULT_PRICING, 12)).toBe(39900n);
  });

  it('nets a sale of its MDR and per-transaction fees, half-up to the cent', () => {
    // R$ 100.00 at 2.99 % = 2.99, minus 0.10 and 0.15 -> 96.76
    expect(creditNetCents(DEFAULT_PRICING, 10000n, 1)).toBe(9676n);
    // R$ 10.50 at 3.49 % = 0.36645 -> 0.37; 10.50 - 0.37 - 0.25 = 9.88
    expect(creditNetCents(DEFAULT_PRICING, 1050n, 3)).toBe(988n);
    expect(creditNetCents(DEFAULT_PRICING, 1n, 1)).toBe(0n); // never negative
  });

  // Installment arithmetic (10,4 values are integers in ten-thousandths of a real: 480000n = R$ 48.0000).
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

});
