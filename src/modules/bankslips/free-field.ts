/**
 * This gateway's 25-digit free field (barcode positions 20-44, the bank's own layout):
 *
 * | free field pos | barcode pos | content |
 * |---|---|---|
 * | 1-10  | 20-29 | beneficiary code: the merchant's accountNumber, zero-padded |
 * | 11-24 | 30-43 | our number sequence ("nosso número"), 14 digits, unique per slip |
 * | 25    | 44    | our number check digit (`mod11Dv`, src/domain/boleto.ts) |
 *
 * The "our number" shown to people is the 14-digit sequence followed by its check digit
 * (15 digits). Its own check digit lets a clerk or a bank return file confirm an our number
 * typed or read alone; the barcode's general DV and the line's mod-10 DVs cover the rest.
 */

import { mod11Dv } from '../../domain/boleto.js';

const ACCOUNT_DIGITS = 10;
const SEQUENCE_DIGITS = 14;

/** The 15-digit our number (sequence + DV) of a slip sequence. */
export function ourNumberOf(seq: number): string {
  if (!Number.isSafeInteger(seq) || seq < 1 || String(seq).length > SEQUENCE_DIGITS) {
    throw new RangeError(`slip sequence ${seq} does not fit the ${SEQUENCE_DIGITS}-digit our number`);
  }
  const sequence = String(seq).padStart(SEQUENCE_DIGITS, '0');
  return sequence + mod11Dv(sequence);
}

/** The free field of a slip; RangeError when the account number or sequence does not fit. */
export function buildFreeField(accountNumber: number, seq: number): string {
  const account = String(accountNumber);
  if (!/^\d+$/.test(account) || account.length > ACCOUNT_DIGITS) {
    throw new RangeError(`account number ${accountNumber} does not fit the ${ACCOUNT_DIGITS}-digit beneficiary code`);
  }
  return account.padStart(ACCOUNT_DIGITS, '0') + ourNumberOf(seq);
}

export interface ParsedFreeField {
  accountNumber: number;
  ourNumber: string;
}

/** Reads a free field back; null when malformed or when the our number DV is wrong. */
export function parseFreeField(freeField: string): ParsedFreeField | null {
  if (!/^\d{25}$/.test(freeField)) return null;
  const ourNumber = freeField.slice(ACCOUNT_DIGITS);
  if (mod11Dv(ourNumber.slice(0, SEQUENCE_DIGITS)) !== Number(ourNumber[SEQUENCE_DIGITS])) return null;
  return { accountNumber: Number(freeField.slice(0, ACCOUNT_DIGITS)), ourNumber };
}
