/**
 * JSON text of single values, for the serializers of the streamed answers (conciliation range
 * searches, bank slip listings) that build each record as a string instead of
 * `JSON.stringify` of an object. Each gives exactly the text `JSON.stringify` would.
 */

/** Characters JSON.stringify would escape (quote, backslash, controls) or might (surrogates, escaped when lone). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A JSON string: most values (dates, codes, ids) need no escaping, and quoting them is cheaper than JSON.stringify. */
export const jsonString = (v: string): string => (NEEDS_ESCAPE.test(v) ? JSON.stringify(v) : `"${v}"`);

/** Fractions of a scale, with trailing zeros dropped ("" for 0): ".01" ... ".99", ".0001" ... ".9999". */
const fractions = (decimals: number): string[] =>
  Array.from({ length: 10 ** decimals }, (_, f) => (f === 0 ? '' : `.${String(f).padStart(decimals, '0')}`.replace(/0+$/, '')));
const CENTS = fractions(2);
const TEN_THOUSANDTHS = fractions(4);

/**
 * The JSON number text of an exact decimal stored as an integer in units of 10^-decimals (cents,
 * ten-thousandths): the same text as `String(v / 10 ** decimals)`, i.e. what the schema
 * serializers write for `toJsonNumber`, built from the integer and fraction parts instead of a
 * float-to-shortest-decimal conversion. The same because the decimal has at most `decimals`
 * fraction digits and fewer than 16 significant ones, so it is the shortest text naming the float
 * nearest to it, and it is never below 1e-6 nor above 1e21 (where JavaScript switches to
 * exponents). test/domain/json-text.test.ts compares the two.
 */
export function scaledJsonText(v: number, decimals: 2 | 4): string {
  if (v < 0) return `-${scaledJsonText(-v, decimals)}`;
  const scale = decimals === 2 ? 100 : 10_000;
  const table = decimals === 2 ? CENTS : TEN_THOUSANDTHS;
  if (v < scale) return v === 0 ? '0' : `0${table[v]}`;
  const fraction = v % scale;
  return `${(v - fraction) / scale}${table[fraction]}`;
}
