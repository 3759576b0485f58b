import type { CardBrand } from '../../domain/cards.js';
import type { ReturnCode } from '../types.js';
import { declineCategoryOf, type DeclineCategory } from '../../domain/decline-category.js';

/**
 * Cielo E-commerce API 3.0 answers mapped onto the acquirer contract, as data. Every table
 * here is reproduced in docs/operations.md ("Cielo return codes"); change both together.
 */

/** Our brands to Cielo's `CreditCard.Brand` names. */
export const CIELO_BRANDS: Record<CardBrand, string> = {
  visa: 'Visa',
  mastercard: 'Master',
  amex: 'Amex',
  elo: 'Elo',
  hipercard: 'Hipercard',
};

/**
 * `Payment.Status`. With `Capture: true` an approved sale reads 2 (PaymentConfirmed); 1
 * (Authorized) is approved too. 12 (Pending, "awaiting the financial institution") and 20
 * (Scheduled) are not an outcome yet: the sale is looked up again later. 0 (NotFinished) is,
 * in Cielo's words, a payment that failed to process (bad data, acquirer time-out), and 13
 * (Aborted) a processing failure: nothing charged. 10/11 (Voided, Refunded) on a sale we never
 * recorded as approved leave nothing charged either.
 */
export type CieloStatusClass = 'approved' | 'declined' | 'pending' | 'voided' | 'failed';
export const CIELO_STATUS: Record<number, CieloStatusClass> = {
  0: 'failed',
  1: 'approved',
  2: 'approved',
  3: 'declined',
  10: 'voided',
  11: 'voided',
  12: 'pending',
  13: 'failed',
  20: 'pending',
};

/** A decline's code: ours, or `failed` when it means the network, not the card, said no (nothing charged, 96). */
export type MappedCode = Exclude<ReturnCode, '00' | '96'> | 'failed';

/**
 * Production (ABECS) codes, the same in every brand table for the cases the recurrence rules
 * tell apart: 51 is the only retryable decline; 41, 43, 46 and 78 block a subscription.
 * Amex's own numbers (Cielo's "De/Para" column) map to the same meanings. Anything not listed
 * is a plain decline (05) with Cielo's code kept in the message.
 */
export const ABECS_CODES: Record<string, MappedCode> = {
  '05': '05',
  '5': '05',
  '100': '05',
  '51': '51',
  '116': '51',
  '121': '51',
  A5: '51',
  '54': '54',
  '101': '54',
  '41': '41',
  '208': '41',
  '43': '43',
  '209': '43',
  '46': '46',
  '14': '14',
  '56': '14',
  '111': '14',
  '57': '57',
  '59': '59',
  '62': '78',
  '78': '78',
  '63': '14',
  '82': '14',
  '96': 'failed',
  '91': 'failed',
  '99': 'failed',
  AC: 'failed',
  BP171: '59',
};

/**
 * Cielo's sandbox ("Simulado") answers by the card number's last digit with codes of its own,
 * two of which mean something else in production: 57 is "expired card" (ABECS: not permitted)
 * and 77 "cancelled card" (ABECS: invalid account). Applied over the ABECS table when the
 * connection's environment is `sandbox`.
 */
export const SANDBOX_CODES: Record<string, MappedCode> = {
  '05': '05',
  '57': '54',
  '78': '78',
  '99': 'failed',
  '77': '46',
  '70': '14',
};

export function mapDeclineCode(code: string, environment: 'production' | 'sandbox'): MappedCode {
  const key = code.trim().toUpperCase();
  return (environment === 'sandbox' ? SANDBOX_CODES[key] : undefined) ?? ABECS_CODES[key] ?? '05';
}

/**
 * A void's `ReturnCode` (Cielo's cancellation return codes), partial or full: `done` (0 a
 * partial void approved, 9 a full one), `unknown` (5 "posting error, check the transaction
 * status", 10 "a pending request with the same information already exists": the sale is read
 * before anything is concluded), and anything else refused (43 and 56 "insufficient balance in
 * the schedule", 51 "more than the sale", 57 "processing failure"...), with Cielo's message.
 */
export type VoidAnswer = 'done' | 'unknown';
export const CIELO_VOID_CODES: Record<string, VoidAnswer> = {
  '0': 'done',
  '00': 'done',
  '9': 'done',
  '5': 'unknown',
  '10': 'unknown',
};

/**
 * Whether a Cielo decline may be tried again, by Cielo's own code: ABECS Normativo 21's
 * reversible (retryable) and irreversible (final) codes, as Cielo's "Códigos de Retorno padrão
 * ABECS" page lists them per brand, with Amex's own numbers (its "De/Para" column) and the
 * sandbox's codes. A code not listed falls back to the ABECS table over the code it maps to.
 */
export const CIELO_DECLINE_CATEGORIES: Record<string, DeclineCategory> = {
  // Amex: 100 generic, 116/121/A5 insufficient funds, 101 expired, 111 invalid card, 208/209 lost/stolen.
  '100': 'retryable',
  '116': 'retryable',
  '121': 'retryable',
  A5: 'retryable',
  '101': 'final',
  '111': 'final',
  '208': 'final',
  '209': 'final',
  // Cielo's anti-fraud refusal: the ABECS "suspected fraud" entry (59), reversible.
  BP171: 'retryable',
};

/** The sandbox's codes where they differ from production (57 expired, 77 cancelled, 70 card problem: final; 99 time out: retryable). */
export const SANDBOX_DECLINE_CATEGORIES: Record<string, DeclineCategory> = {
  '57': 'final',
  '77': 'final',
  '70': 'final',
  '99': 'retryable',
};

export function cieloDeclineCategory(code: string, environment: 'production' | 'sandbox', mapped: ReturnCode): DeclineCategory {
  const key = code.trim().toUpperCase();
  return (environment === 'sandbox' ? SANDBOX_DECLINE_CATEGORIES[key] : undefined) ?? CIELO_DECLINE_CATEGORIES[key] ?? declineCategoryOf(key.padStart(2, '0')) ?? declineCategoryOf(mapped) ?? 'final';
}
