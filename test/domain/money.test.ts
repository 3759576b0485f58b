import { describe, expect, it } from 'vitest';
import {
  BANK_SLIP_VALUE,
  CONCILIATION_VALUE,
  PLAN_AMOUNT,
  PRICING_PERCENT,
  SPLIT_PERCENT,
  formatFixed,
  mulDivHalfUp,
  numberToDecimalString,
  parseDecimal,
  percentOf,
  prorataInterest,
  roundHalfUp,
  splitInstallments,
  toJsonNumber,
} from '../../src/domain/money.js';

describe('numberToDecimalString', () => {
  it('gives the decimal the client wrote for short inputs', () => {
    expect(numberToDecimalString(12.6)).toBe('12.6');
    expect(numberToDecimalString(0.1)).toBe('0.1');
    expect(numberToDecimalString(214.03)).toBe('214.03');
    expect(numberToDecimalString(-0)).toBe('0');
  });

  it('expands exponent notation', () => {
    expect(numberToDecimalString(1.5e-7)).toBe('0.00000015');
    expect(numberToDecimalString(1e-7)).toBe('0.0000001');
    expect(numberToDecimalString(-2.5e-7)).toBe('-0.00000025');
    expect(numberToDecimalString(1e21)).toBe('1000000000000000000000');
    expect(numberToDecimalString(1.25e22)).toBe('12500000000000000000000');
  });

  it('is null for non-finite numbers', () => {
    expect(numberToDecimalString(Number.NaN)).toBeNull();
    expect(numberToDecimalString(Number.POSITIVE_INFINITY)).toBeNull();
  });
});

describe('parseDecimal', () => {
  it('parses plan amounts exactly (12 integer digits, 6 decimals)', () => {
    expect(parseDecimal(12.6, PLAN_AMOUNT)).toEqual({ ok: true, value: 12_600_000n });
    expect(parseDecimal('12.6', PLAN_AMOUNT)).toEqual({ ok: true, value: 12_600_000n });
    expect(parseDecimal(0.000001, PLAN_AMOUNT)).toEqual({ ok: true, value: 1n });
    expect(parseDecimal(99.999999, PLAN_AMOUNT)).toEqual({ ok: true, value: 99_999_999n });
    expect(parseDecimal(999999999999.99, PLAN_AMOUNT)).toEqual({ ok: true, value: 999_999_999_999_990_000n });
    expect(parseDecimal('999999999999.999999', PLAN_AMOUNT)).toEqual({ ok: true, value: 999_999_999_999_999_999n });
    expect(parseDecimal(100, PLAN_AMOUNT)).toEqual({ ok: true, value: 100_000_000n });
  });

  it('rejects too many decimals or integer digits instead of rounding', () => {
    expect(parseDecimal(0.0000001, PLAN_AMOUNT)).toEqual({ ok: false, error: 'too_many_decimals' });
    expect(parseDecimal('1.1234567', PLAN_AMOUNT)).toEqual({ ok: false, error: 'too_many_decimals' });
    expect(parseDecimal(1234567890123, PLAN_AMOUNT)).toEqual({ ok: false, error: 'too_many_integer_digits' });
    expect(parseDecimal(10.001, BANK_SLIP_VALUE)).toEqual({ ok: false, error: 'too_many_decimals' });
    expect(parseDecimal(0.1 + 0.2, BANK_SLIP_VALUE)).toEqual({ ok: false, error: 'too_many_decimals' });
  });

  it('ignores leading and trailing zeros when counting digits', () => {
    expect(parseDecimal('0012.600000000', PLAN_AMOUNT)).toEqual({ ok: true, value: 12_600_000n });
    expect(parseDecimal('10.50', BANK_SLIP_VALUE)).toEqual({ ok: true, value: 1050n });
    expect(parseDecimal('10.500', BANK_SLIP_VALUE)).toEqual({ ok: true, value: 1050n });
  });

  it('rejects a float that cannot tell which decimal was sent', () => {
    // 999999999999.999999 is the float 1e12; 123456789012.123456 prints as ...12.12346.
    expect(parseDecimal(999999999999.999999, PLAN_AMOUNT)).toEqual({ ok: false, error: 'too_many_integer_digits' });
    expect(parseDecimal(123456789012.12346, PLAN_AMOUNT)).toEqual({ ok: false, error: 'imprecise_number' });
    // 16 significant digits but one float per micro-real at this size: exact.
    expect(parseDecimal(1234567890.123456, PLAN_AMOUNT)).toEqual({ ok: true, value: 1_234_567_890_123_456n });
  });

  it('applies bounds: split percent 0..100 with 2 decimals, bank slip > 0', () => {
    expect(parseDecimal(12.5, SPLIT_PERCENT)).toEqual({ ok: true, value: 1250n });
    expect(parseDecimal(100, SPLIT_PERCENT)).toEqual({ ok: true, value: 10_000n });
    expect(parseDecimal(0, SPLIT_PERCENT)).toEqual({ ok: true, value: 0n });
    expect(parseDecimal(100.01, SPLIT_PERCENT)).toEqual({ ok: false, error: 'out_of_range' });
    expect(parseDecimal(-1, SPLIT_PERCENT)).toEqual({ ok: false, error: 'out_of_range' });
    expect(parseDecimal(12.345, SPLIT_PERCENT)).toEqual({ ok: false, error: 'too_many_decimals' });
    expect(parseDecimal(0, BANK_SLIP_VALUE)).toEqual({ ok: false, error: 'out_of_range' });
    expect(parseDecimal(99999999.99, BANK_SLIP_VALUE)).toEqual({ ok: true, value: 9_999_999_999n });
    expect(parseDecimal(100000000, BANK_SLIP_VALUE)).toEqual({ ok: false, error: 'out_of_range' });
    expect(parseDecimal(2.99, PRICING_PERCENT)).toEqual({ ok: true, value: 29_900n });
    expect(parseDecimal(-1.5, { ...CONCILIATION_VALUE, min: -10_000_000n })).toEqual({ ok: true, value: -15_000n });
  });

  it('rejects what is not a plain decimal', () => {
    for (const bad of ['', ' 1', '1 ', '1e3', '+1', '.5', '5.', '1,5', 'abc', null, undefined, true, {}, Number.NaN, 10n]) {
      expect(parseDecimal(bad, PLAN_AMOUNT), String(bad)).toEqual({ ok: false, error: 'not_a_number' });
    }
  });
});

describe('formatting', () => {
  it('formatFixed writes exactly the scale', () => {
    expect(formatFixed(12_600_000n, 6)).toBe('12.600000');
    expect(formatFixed(5n, 4)).toBe('0.0005');
    expect(formatFixed(-15_000n, 4)).toBe('-1.5000');
    expect(formatFixed(-5n, 2)).toBe('-0.05');
    expect(formatFixed(0n, 2)).toBe('0.00');
    expect(formatFixed(42n, 0)).toBe('42');
  });

  it('toJsonNumber round-trips through JSON', () => {
    expect(toJsonNumber(12_600_000n, 6)).toBe(12.6);
    expect(JSON.stringify({ v: toJsonNumber(9969n, 4) })).toBe('{"v":0.9969}');
    expect(JSON.stringify({ v: toJsonNumber(21_403n, 2) })).toBe('{"v":214.03}');
    expect(toJsonNumber(-5n, 2)).toBe(-0.05);
  });
});

describe('rounding', () => {
  it('roundHalfUp rounds half away from zero', () => {
    expect(roundHalfUp(12_605_000n, 6, 2)).toBe(1261n);
    expect(roundHalfUp(12_604_999n, 6, 2)).toBe(1260n);
    expect(roundHalfUp(-12_605_000n, 6, 2)).toBe(-1261n);
    expect(roundHalfUp(-12_604_999n, 6, 2)).toBe(-1260n);
    expect(roundHalfUp(1234n, 2, 4)).toBe(123_400n);
    expect(roundHalfUp(1234n, 2, 2)).toBe(1234n);
  });

  it('mulDivHalfUp handles signs', () => {
    expect(mulDivHalfUp(1n, 1n, 2n)).toBe(1n);
    expect(mulDivHalfUp(-1n, 1n, 2n)).toBe(-1n);
    expect(mulDivHalfUp(1n, 1n, -2n)).toBe(-1n);
    expect(mulDivHalfUp(1n, 1n, 3n)).toBe(0n);
    expect(mulDivHalfUp(2n, 1n, 3n)).toBe(1n);
    expect(() => mulDivHalfUp(1n, 1n, 0n)).toThrow(RangeError);
  });
});

describe('splitInstallments', () => {
  it('puts the leftover on installment 1', () => {
    expect(splitInstallments(10_000n, 3)).toEqual([3334n, 3333n, 3333n]);
    expect(splitInstallments(15_000n, 3)).toEqual([5000n, 5000n, 5000n]);
    expect(splitInstallments(1001n, 12)).toEqual([88n, ...Array(11).fill(83n)]);
    expect(splitInstallments(5n, 1)).toEqual([5n]);
    expect(splitInstallments(2n, 3)).toEqual([2n, 0n, 0n]);
  });

  it('always adds up to the total', () => {
    for (const total of [1n, 99n, 100n, 12_345n, 999_999n]) {
      for (let n = 1; n <= 12; n++) expect(splitInstallments(total, n).reduce((a, b) => a + b, 0n)).toBe(total);
    }
  });

  it('refuses a non-positive count', () => {
    expect(() => splitInstallments(100n, 0)).toThrow(RangeError);
    expect(() => splitInstallments(100n, 1.5)).toThrow(RangeError);
  });
});

describe('percentages', () => {
  it('MDR 2.99% of an installment, in ten-thousandths of a real', () => {
    const installment = roundHalfUp(3334n, 2, 4); // R$ 33.34
    expect(percentOf(installment, 29_900n, 4)).toBe(9969n); // exact 0.996866
    expect(percentOf(roundHalfUp(10_000n, 2, 4), 29_900n, 4)).toBe(29_900n); // R$ 100 -> 2.99
  });

  it('reference vector: R$ 150 in 3, MDR 4%, prepaid at 2.5% a month', () => {
    const installments = splitInstallments(roundHalfUp(15_000n, 2, 4), 3);
    const net = installments.map((v) => v - percentOf(v, 40_000n, 4));
    expect(net).toEqual([480_000n, 480_000n, 480_000n]);
    const prepaid = net.map((v, i) => v - prorataInterest(v, 25_000n, 4, 30 * (i + 1)));
    expect(prepaid).toEqual([468_000n, 456_000n, 444_000n]);
    expect(prepaid.reduce((a, b) => a + b, 0n)).toBe(1_368_000n);
    expect(formatFixed(1_368_000n, 4)).toBe('136.8000');
  });

  it('split percent with 2 decimals of a base', () => {
    expect(percentOf(480_000n, 1250n, 2)).toBe(60_000n); // 12.5% of 48.00
    expect(percentOf(333_400n, 3333n, 2)).toBe(111_122n); // 33.33% of 33.34 = 11.112222
  });
});
