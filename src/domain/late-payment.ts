import { addDays, daysBetween, nextBusinessDay } from './calendar.js';
import { percentOf, prorataInterest } from './money.js';

/** A fixed discount for paying early: `amountCents` off when paid on or before `until`. */
export interface EarlyDiscount {
  amountCents: bigint;
  /** YYYY-MM-DD, inclusive; never after the due date. */
  until: string;
}

/** A slip's (or a Pix charge with a due date's) terms; percents are scaled by 10^4 (2% = 20000n). */
export interface OverdueTerms {
  dueDate: string;
  allow: boolean;
  /** Last day a late payment is accepted, inclusive; set whenever `allow` is. */
  dateLimit: string | null;
  penaltyPercent: bigint;
  interestPercentPerMonth: bigint;
  /** Up to three (FEBRABAN's, the API Pix's), by date: the first whose date is not past applies. */
  discounts?: readonly EarlyDiscount[];
}

export const PERCENT_DECIMALS = 4;

export type Settlement =
  | { ok: true; daysLate: number; penalty: bigint; interest: bigint; discount: bigint; total: bigint }
  | { ok: false; reason: 'overdue_not_allowed' | 'past_date_limit' };

/**
 * What a payer owes on `paymentDate` for a slip of `valueCents`.
 *
 * - Paid on or before a discount's date: the value less the first such discount (by date).
 * - A slip due on a weekend or bank holiday is paid at face value on the next business day
 *   (banks are closed on the due date), so charges start only after that day.
 * - Late: the penalty is `penaltyPercent` of the value, once; interest is simple and pro rata
 *   by calendar day, `interestPercentPerMonth / 30` per day counted from the due date itself.
 *   Both half-up to the cent (money.ts).
 * - Refused when late payment is not allowed, or after `dateLimit`.
 */
export function settlementOn(valueCents: bigint, terms: OverdueTerms, paymentDate: string): Settlement {
  if (paymentDate <= nextBusinessDay(terms.dueDate)) {
    const discount = [...(terms.discounts ?? [])].sort((a, b) => (a.until < b.until ? -1 : 1)).find((d) => paymentDate <= d.until)?.amountCents ?? 0n;
    return { ok: true, daysLate: 0, penalty: 0n, interest: 0n, discount, total: valueCents - discount };
  }
  if (!terms.allow) return { ok: false, reason: 'overdue_not_allowed' };
  if (terms.dateLimit !== null && paymentDate > terms.dateLimit) return { ok: false, reason: 'past_date_limit' };
  const daysLate = daysBetween(terms.dueDate, paymentDate);
  const penalty = percentOf(valueCents, terms.penaltyPercent, PERCENT_DECIMALS);
  const interest = prorataInterest(valueCents, terms.interestPercentPerMonth, PERCENT_DECIMALS, daysLate);
  return { ok: true, daysLate, penalty, interest, discount: 0n, total: valueCents + penalty + interest };
}

/**
 * The last day a charge with a due date (API Pix `cobv`) can be paid: `validadeAposVencimento`
 * calendar days after the due date, the due date first moved to the next business day when it
 * falls on a weekend or holiday, and the last day likewise (the API Pix's examples A to G).
 */
export function lastPayableDay(dueDate: string, daysAfterDue: number): string {
  return nextBusinessDay(addDays(nextBusinessDay(dueDate), daysAfterDue));
}
