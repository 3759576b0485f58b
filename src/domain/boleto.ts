/**
 * FEBRABAN bank slip ("cobrança") barcode and digitable line (reference: brazil-standards.md,
 * "Boleto"). Barcode, 44 digits: bank (3), currency (1, 9 = BRL), general DV (1), due-date
 * factor (4), amount in cents (10), free field (25, the bank's own layout).
 */
import { daysBetween, addDays } from './calendar.js';

/** Day 0 of the due-date factor. */
const FACTOR_BASE = '1997-10-07';
/** The 10-digit amount field: R$ 99,999,999.99 is the most a slip can carry. */
export const MAX_BOLETO_AMOUNT_CENTS = 9_999_999_999n;

const digitsOnly = (s: string, n: number): boolean => s.length === n && /^\d+$/.test(s);

/** Mod 10 of the line fields: weights 2,1,2,... from the right, summing the product digits. */
export function mod10Dv(digits: string): number {
  let sum = 0;
  for (let i = digits.length - 1, w = 2; i >= 0; i--, w = 3 - w) {
    const p = (digits.charCodeAt(i) - 48) * w;
    sum += p > 9 ? p - 9 : p; // digit sum of a product <= 18
  }
  return (10 - (sum % 10)) % 10;
}

/** The digits weighted 2..9 cycling from the right, summed: the two mod 11 rules below differ only in their DV of 10 and 11. */
function mod11Sum(digits: string): number {
  let sum = 0;
  for (let i = digits.length - 1, w = 2; i >= 0; i--, w = w === 9 ? 2 : w + 1) {
    sum += (digits.charCodeAt(i) - 48) * w;
  }
  return sum;
}

/**
 * General DV over the 43 barcode digits without position 5: weights 2..9 cycling from the
 * right; 11 - remainder, and 0, 10 or 11 become 1. A bank slip DV is never 0; the arrecadação
 * rule (remainder 0/1 -> 0) used by some validators is a different standard.
 */
export function barcodeDv(digits43: string): number {
  const r = 11 - (mod11Sum(digits43) % 11);
  return r === 0 || r === 10 || r === 11 ? 1 : r;
}

/**
 * Mod 11 with weights 2..9 cycling from the rightmost digit, DV = 11 - (sum % 11), and 10 or 11
 * become 0: the usual rule of the our number ("nosso número") and of the bank code's own digit
 * printed beside it (001-9, 237-2, 341-7, 104-0). Unlike the barcode's general DV, 0 is allowed.
 */
export function mod11Dv(digits: string): number {
  const dv = 11 - (mod11Sum(digits) % 11);
  return dv >= 10 ? 0 : dv;
}

/**
 * Due-date factor: days since 1997-10-07, restarting at 1000 after 9999 (2025-02-21), so
 * 2025-02-22 is 1000 again and the count repeats every 9000 days.
 */
export function dueDateFactor(date: string): number {
  const d = daysBetween(FACTOR_BASE, date);
  if (d < 1) throw new RangeError(`no due-date factor before 1997-10-08: ${date}`);
  return d <= 9999 ? d : ((d - 1000) % 9000) + 1000;
}

/**
 * The due date of a factor: of the dates sharing it (every 9000 days from 2025-02-22 on),
 * the one closest to `today`; on an exact tie, the later one. Factor 0 means no due date.
 */
export function factorToDate(factor: number, today: string): string | null {
  if (!Number.isInteger(factor) || factor < 0 || factor > 9999) throw new RangeError(`invalid factor: ${factor}`);
  if (factor === 0) return null;
  if (factor < 1000) return addDays(FACTOR_BASE, factor); // only ever issued before the restart
  const t = daysBetween(FACTOR_BASE, today);
  const k0 = Math.max(0, Math.round((t - factor) / 9000));
  let best = factor + 9000 * k0;
  for (const k of [k0 - 1, k0 + 1]) {
    if (k < 0) continue;
    const d = factor + 9000 * k;
    const diff = Math.abs(d - t) - Math.abs(best - t);
    if (diff < 0 || (diff === 0 && d > best)) best = d;
  }
  return addDays(FACTOR_BASE, best);
}

export interface BarcodeInput {
  bankCode: string;
  /** null: a slip without due date (factor 0000). */
  dueDate: string | null;
  amountCents: bigint | number;
  freeField: string;
}

export function buildBarcode(input: BarcodeInput): string {
  if (!digitsOnly(input.bankCode, 3)) throw new RangeError('bank code must be 3 digits');
  if (!digitsOnly(input.freeField, 25)) throw new RangeError('free field must be 25 digits');
  const amount = BigInt(input.amountCents);
  if (amount < 0n || amount > MAX_BOLETO_AMOUNT_CENTS) throw new RangeError('amount does not fit 10 digits');
  const factor = input.dueDate === null ? 0 : dueDateFactor(input.dueDate);
  const body = input.bankCode + '9' + String(factor).padStart(4, '0') + amount.toString().padStart(10, '0') + input.freeField;
  return body.slice(0, 4) + barcodeDv(body) + body.slice(4);
}

export interface ParsedBarcode {
  bankCode: string;
  currency: string;
  dv: number;
  factor: number;
  amountCents: bigint;
  freeField: string;
}

/** Splits a 44-digit barcode; null when malformed or when its general DV is wrong. */
export function parseBarcode(barcode: string): ParsedBarcode | null {
  if (!digitsOnly(barcode, 44)) return null;
  const dv = Number(barcode[4]);
  if (barcodeDv(barcode.slice(0, 4) + barcode.slice(5)) !== dv) return null;
  return {
    bankCode: barcode.slice(0, 3),
    currency: barcode[3],
    dv,
    factor: Number(barcode.slice(5, 9)),
    amountCents: BigInt(barcode.slice(9, 19)),
    freeField: barcode.slice(19),
  };
}

/** The 47-digit digitable line of a valid barcode (throws RangeError otherwise). */
export function barcodeToLine(barcode: string): string {
  if (parseBarcode(barcode) === null) throw new RangeError('invalid barcode');
  const f1 = barcode.slice(0, 4) + barcode.slice(19, 24);
  const f2 = barcode.slice(24, 34);
  const f3 = barcode.slice(34, 44);
  return f1 + mod10Dv(f1) + f2 + mod10Dv(f2) + f3 + mod10Dv(f3) + barcode[4] + barcode.slice(5, 19);
}

/**
 * The barcode of a digitable line, plain or formatted (dots and spaces are ignored); null
 * when a field DV or the general DV is wrong, so a mistyped line is caught.
 */
export function lineToBarcode(line: string): string | null {
  const l = line.replace(/[.\s]/g, '');
  if (!digitsOnly(l, 47)) return null;
  const f1 = l.slice(0, 9);
  const f2 = l.slice(10, 20);
  const f3 = l.slice(21, 31);
  if (mod10Dv(f1) !== Number(l[9]) || mod10Dv(f2) !== Number(l[20]) || mod10Dv(f3) !== Number(l[31])) return null;
  const barcode = f1.slice(0, 4) + l[32] + l.slice(33, 47) + f1.slice(4) + f2 + f3;
  return parseBarcode(barcode) === null ? null : barcode;
}

/** `AAABC.CCCCX DDDDD.DDDDDY EEEEE.EEEEEZ K UUUUVVVVVVVVVV` from the 47 digits. */
export function formatLine(line: string): string {
  if (!digitsOnly(line, 47)) throw new RangeError('digitable line must be 47 digits');
  return `${line.slice(0, 5)}.${line.slice(5, 10)} ${line.slice(10, 15)}.${line.slice(15, 21)} ` +
    `${line.slice(21, 26)}.${line.slice(26, 32)} ${line[32]} ${line.slice(33)}`;
}
