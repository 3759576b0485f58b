import { describe, expect, it } from 'vitest';
import { creditMdr, creditNetCents, DEFAULT_PRICING, splitShareCents } from '../../src/domain/fees.js';

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

  it('computes split shares with 2-decimal percents, half-up', () => {
    expect(splitShareCents(10000n, 3333n)).toBe(3333n);
    expect(splitShareCents(1001n, 5000n)).toBe(501n); // 500.5 -> 501
    expect(splitShareCents(999n, 10000n)).toBe(999n);
    expect(splitShareCents(12345n, 0n)).toBe(0n);
  });
});
