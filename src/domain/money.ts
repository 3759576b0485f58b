/**
 * Exact decimal money (contract section 2: "never binary floating point inside the service").
 *
 * Representation: a decimal is a `bigint` scaled by 10^decimals, the scale being implied by
 * the field, never stored next to the value:
 * - card amounts: cents (scale 2), as the seeds say;
 * - conciliation 10,4 fields (installment value, MDR, fees, received value, splits): integer
 *   ten-thousandths of a real (scale 4), so R$ 1.4950 is 14950n;
 * - percentages with 4 decimals (MDR 2.99, monthly rate 1.99): scale 4, so 2.99% is 29900n
 *   and 100% is 1000000n; split percents (5,2): scale 2, so 12.5% is 1250n;
 * - plan amount (12 integer digits, 6 decimals): scale 6; bank slip value (11,2): scale 2.
 * Rounding is half-up, meaning half away from zero (commercial rounding), everywhere.
 */

export interface DecimalSpec {
  /** Maximum digits before the point (leading zeros do not count). */
  readonly integerDigits: number;
  /** Maximum digits after the point (trailing zeros do not count); also the scale. */
  readonly decimals: number;
  /** Inclusive bounds on the scaled value; min defaults to 0 (negatives rejected). */
  readonly min?: bigint;
  readonly max?: bigint;
}

export const PLAN_AMOUNT: DecimalSpec = { integerDigits: 12, decimals: 6 };
/**
 * Bank slip value: 11,2 in the seeds and > 0 in the contract, but the FEBRABAN barcode holds
 * the amount in 10 digits, so a slip above R$ 99,999,999.99 could not be printed.
 */
export const BANK_SLIP_VALUE: DecimalSpec = { integerDigits: 9, decimals: 2, min: 1n, max: 9_999_999_999n };
export const SPLIT_PERCENT: DecimalSpec = { integerDigits: 3, decimals: 2, max: 10_000n };
export const PRICING_PERCENT: DecimalSpec = { integerDigits: 3, decimals: 4, max: 1_000_000n };
export const CONCILIATION_VALUE: DecimalSpec = { integerDigits: 6, decimals: 4 };

export type DecimalError =
  | 'not_a_number'
  | 'too_many_decimals'
  | 'too_many_integer_digits'
  | 'out_of_range'
  /** A JSON number whose float cannot tell which decimal the client wrote; send a string. */
  | 'imprecise_number';

export type ParsedDecimal = { ok: true; value: bigint } | { ok: false; error: DecimalError };

const DECIMAL_STRING = /^(-?)(\d+)(?:\.(\d+))?$/;
const EXPONENT_STRING = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/;

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/**
 * The shortest decimal string of a float, without exponent notation. `String(n)` gives the
 * shortest digit string that converts back to the same float (ECMAScript Number::toString).
 * Any decimal written with at most 15 significant digits survives the trip through a double
 * (IEEE 754 binary64 guarantees 15, DBL_DIG), so no other decimal of at most 15 digits maps to
 * the same float; the shortest string is therefore the very decimal the client wrote.
 * `12.6` arrives as 12.5999999999999996447... and comes back as "12.6".
 */
export function numberToDecimalString(n: number): string | null {
  if (!Number.isFinite(n)) return null;
  const s = String(n); // -0 prints "0"
  const m = EXPONENT_STRING.exec(s);
  if (m === null) return s;
  const [, sign, int, frac = '', exp] = m;
  const digits = int + frac;
  const point = int.length + Number(exp);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

function significantDigits(decimal: string): number {
  return decimal.replace(/[-.]/g, '').replace(/^0+/, '').replace(/0+$/, '').length;
}

/**
 * Parses a JSON number or a numeric string ("12.60", "-3", no exponent, no spaces) into a
 * scaled bigint with `spec.decimals` decimals, rejecting more decimals or integer digits than
 * the field allows instead of rounding them away.
 *
 * A JSON number is accepted when its shortest form has at most 15 significant digits (it is
 * what the client wrote, see `numberToDecimalString`) or when the neighbouring values one
 * unit of the field apart map to different floats (then no other value the field allows could
 * have produced this float). Otherwise it is `imprecise_number`: e.g. 999999999999.999999 as
 * a number is the float 1e12, and accepting it would silently change the amount.
 */
export function parseDecimal(input: unknown, spec: DecimalSpec): ParsedDecimal {
  let text: string | null = null;
  if (typeof input === 'number') text = numberToDecimalString(input);
  else if (typeof input === 'string') text = input;
  const m = text === null ? null : DECIMAL_STRING.exec(text);
  if (m === null) return { ok: false, error: 'not_a_number' };
  const [, sign, intRaw, fracRaw = ''] = m;
  const int = intRaw.replace(/^0+/, '');
  const frac = fracRaw.replace(/0+$/, '');
  if (frac.length > spec.decimals) return { ok: false, error: 'too_many_decimals' };
  if (int.length > spec.integerDigits) return { ok: false, error: 'too_many_integer_digits' };
  const magnitude = BigInt(int + frac.padEnd(spec.decimals, '0'));
  const value = sign === '-' ? -magnitude : magnitude;
  if (typeof input === 'number' && significantDigits(text as string) > 15) {
    const below = Number(formatFixed(value - 1n, spec.decimals));
    const above = Number(formatFixed(value + 1n, spec.decimals));
    if (below === input || above === input) return { ok: false, error: 'imprecise_number' };
  }
  if (value < (spec.min ?? 0n) || (spec.max !== undefined && value > spec.max)) {
    return { ok: false, error: 'out_of_range' };
  }
  return { ok: true, value };
}

/** Exact decimal text with exactly `decimals` digits after the point: 126n, 1 -> "12.6". */
export function formatFixed(scaled: bigint, decimals: number): string {
  const negative = scaled < 0n;
  const digits = (negative ? -scaled : scaled).toString().padStart(decimals + 1, '0');
  const int = digits.slice(0, digits.length - decimals);
  const frac = digits.slice(digits.length - decimals);
  return (negative ? '-' : '') + int + (decimals > 0 ? `.${frac}` : '');
}

/**
 * The value as a JS number for a JSON answer (the contract writes decimals as JSON numbers).
 * Exact in the JSON text whenever the value has at most 15 significant digits (every 10,4 and
 * 11,2 value, and plan amounts up to 15 digits): `Number` takes the nearest float and
 * `JSON.stringify` prints its shortest form, which is this decimal (see
 * `numberToDecimalString`). Longer plan amounts may print rounded.
 */
export function toJsonNumber(scaled: bigint, decimals: number): number {
  return Number(formatFixed(scaled, decimals));
}

/** round(a * b / c), half away from zero; c must not be 0. */
export function mulDivHalfUp(a: bigint, b: bigint, c: bigint): bigint {
  if (c === 0n) throw new RangeError('division by zero');
  const n = a * b;
  const q = n / c; // bigint division truncates toward zero
  const r = n % c;
  const absR = r < 0n ? -r : r;
  const absC = c < 0n ? -c : c;
  if (absR * 2n < absC) return q;
  return (n < 0n) !== (c < 0n) ? q - 1n : q + 1n;
}

/** Changes scale; going down rounds half up: roundHalfUp(12_600_500n, 6, 2) = 1260n. */
export function roundHalfUp(scaled: bigint, fromDecimals: number, toDecimals: number): bigint {
  if (toDecimals >= fromDecimals) return scaled * pow10(toDecimals - fromDecimals);
  return mulDivHalfUp(scaled, 1n, pow10(fromDecimals - toDecimals));
}

/**
 * `amount / n` with the leftover units on installment 1 (contract section 9), in whatever
 * unit the amount is scaled: 10000 cents in 3 -> [3334, 3333, 3333]. The parts always add up.
 */
export function splitInstallments(total: bigint, n: number): bigint[] {
  if (!Number.isInteger(n) || n < 1) throw new RangeError('installments must be an integer >= 1');
  const each = total / BigInt(n);
  const parts = Array.from({ length: n }, () => each);
  parts[0] += total - each * BigInt(n);
  return parts;
}

/**
 * `percent`% of `amount`, half-up, in the amount's unit; `percent` is scaled by
 * 10^percentDecimals. MDR 2.99% (29900n, 4) of R$ 33.34 (333400n ten-thousandths) = 9969n,
 * i.e. R$ 0.9969 (the exact 0.996866 rounded to the 4 decimals of the 10,4 field).
 */
export function percentOf(amount: bigint, percent: bigint, percentDecimals: number): bigint {
  return mulDivHalfUp(amount, percent, 100n * pow10(percentDecimals));
}

/**
 * Simple interest pro rata by day on a monthly rate: amount x (rate / 30) x days, half-up,
 * in the amount's unit. Used for prepayment cost (reference: R$ 48.00 at 2.5% a month, 30
 * days -> R$ 1.20) and late-payment interest of bank slips.
 */
export function prorataInterest(amount: bigint, monthlyPercent: bigint, percentDecimals: number, days: number): bigint {
  if (!Number.isInteger(days)) throw new RangeError('days must be an integer');
  return mulDivHalfUp(amount, monthlyPercent * BigInt(days), 30n * 100n * pow10(percentDecimals));
}
