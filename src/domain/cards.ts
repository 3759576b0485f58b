/**
 * Card number checks, brand detection, expiry and masking (reference: brazil-standards.md,
 * "Cards"; contract section 5). No crypto here: encryption and fingerprints live with the
 * card vault.
 */

export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'elo' | 'hipercard';

const DIGITS = /^\d+$/;

/** Luhn mod 10 over a digit string (at least 2 digits; anything else is false). */
export function luhnValid(pan: string): boolean {
  if (pan.length < 2 || !DIGITS.test(pan)) return false;
  let sum = 0;
  for (let i = pan.length - 1, double = false; i >= 0; i--, double = !double) {
    let d = pan.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Inclusive ranges of 6-digit BINs; a single BIN is [n, n]. */
const ELO_BINS: ReadonlyArray<readonly [number, number]> = [
  [401178, 401179], [431274, 431274], [438935, 438935], [451416, 451416],
  [457393, 457393], [457631, 457632], [504175, 504175], [506699, 506778],
  [509000, 509999], [627780, 627780], [636297, 636297], [636368, 636369],
  [650031, 650033], [650035, 650051], [650405, 650439], [650485, 650538],
  [650541, 650598], [650700, 650718], [650720, 650727], [650901, 650978],
  [651652, 651679], [655000, 655019], [655021, 655058],
];

/** Hipercard BINs with the PAN length each one issues. */
const HIPERCARD_BINS: ReadonlyArray<readonly [string, number]> = [
  ['606282', 16], ['384100', 19], ['384140', 19], ['384160', 19],
];

const LENGTHS: Record<CardBrand, readonly number[]> = {
  // Visa issues 13 to 19 digits (16 by far the most; 17, 18 and 19 are issued today too).
  visa: [13, 16, 17, 18, 19],
  mastercard: [16],
  amex: [15],
  elo: [16],
  hipercard: [16, 19],
};

/** PAN lengths a brand issues (hipercard: 16 for 606282, 19 for the 3841xx BINs). */
export function panLengths(brand: CardBrand): readonly number[] {
  return LENGTHS[brand];
}

/**
 * Brand by prefix only, with Elo and Hipercard tested first: several Elo BINs start with 4
 * or 5 (401178, 504175...) and would otherwise be taken for Visa or Mastercard.
 */
function brandByPrefix(pan: string): CardBrand | null {
  const bin = Number(pan.slice(0, 6));
  if (pan.length >= 6) {
    if (ELO_BINS.some(([lo, hi]) => bin >= lo && bin <= hi)) return 'elo';
    if (HIPERCARD_BINS.some(([prefix]) => pan.startsWith(prefix))) return 'hipercard';
  }
  if (pan.startsWith('34') || pan.startsWith('37')) return 'amex';
  if (pan.startsWith('4')) return 'visa';
  const two = Number(pan.slice(0, 2));
  const four = Number(pan.slice(0, 4));
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'mastercard';
  return null;
}

/**
 * The brand of a PAN, or null when no prefix matches or the length is not one the matched
 * brand issues. The first matching prefix decides: a 19-digit number in an Elo BIN is null,
 * not Visa, because that card cannot exist. Does not check Luhn (see `luhnValid`).
 */
export function detectBrand(pan: string): CardBrand | null {
  if (!DIGITS.test(pan)) return null;
  const brand = brandByPrefix(pan);
  if (brand === null) return null;
  if (brand === 'hipercard') {
    const entry = HIPERCARD_BINS.find(([prefix]) => pan.startsWith(prefix));
    return entry !== undefined && entry[1] === pan.length ? brand : null;
  }
  return LENGTHS[brand].includes(pan.length) ? brand : null;
}

export function cvvLength(brand: CardBrand): number {
  return brand === 'amex' ? 4 : 3;
}

export function isValidCvv(cvv: string, brand: CardBrand): boolean {
  return cvv.length === cvvLength(brand) && DIGITS.test(cvv);
}

export type ExpiryCheck =
  | {
      ok: true;
      /** Two digits, '01'..'12'. */
      month: string;
      /** Four digits. */
      year: string;
      /** The first instant (UTC) after the expiry month: the card is usable before it. */
      expiresAt: Date;
      expired: boolean;
    }
  | { ok: false; reason: 'invalid_month' | 'invalid_year' };

/**
 * Parses an expiry and tells whether it has passed at `now`. A card is valid through the last
 * day of its month, so it is expired when the end of that month is before `now`, i.e. from
 * the first instant of the following month (UTC, like every date in the service). A format
 * error and an expired card are different outcomes: tokenising rejects both, while the
 * recurrence checks a stored (well-formed) expiry only for `expired`.
 * Month: exactly two digits 01-12. Year: two digits (20YY) or four digits.
 */
export function validateExpiry(month: string, year: string, now: Date): ExpiryCheck {
  if (!/^\d{2}$/.test(month) || Number(month) < 1 || Number(month) > 12) {
    return { ok: false, reason: 'invalid_month' };
  }
  if (!/^(\d{2}|\d{4})$/.test(year)) return { ok: false, reason: 'invalid_year' };
  const fullYear = year.length === 2 ? 2000 + Number(year) : Number(year);
  // Date.UTC with month index = calendar month gives the 1st of the next month (Dec -> Jan).
  const expiresAt = new Date(Date.UTC(fullYear, Number(month), 1));
  return {
    ok: true,
    month,
    year: String(fullYear).padStart(4, '0'),
    expiresAt,
    expired: now.getTime() >= expiresAt.getTime(),
  };
}

function assertMaskable(pan: string): void {
  // Shorter numbers would reveal (almost) every digit; no brand issues fewer than 13.
  if (!DIGITS.test(pan) || pan.length < 12 || pan.length > 19) {
    throw new RangeError('PAN must be 12 to 19 digits');
  }
}

/** `maskedNumber` / `maskedCardNumber`: first 6, one '*' per hidden digit, last 4. */
export function maskPan(pan: string): string {
  assertMaskable(pan);
  return pan.slice(0, 6) + '*'.repeat(pan.length - 10) + pan.slice(-4);
}

/** Conciliation `cardNumber`: first 4, always 7 '*', last 4 (15 characters, any PAN length). */
export function maskConciliation(pan: string): string {
  assertMaskable(pan);
  return pan.slice(0, 4) + '*******' + pan.slice(-4);
}
