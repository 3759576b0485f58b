import { daysBetween, nextBusinessDay } from './calendar.js';
import { percentOf, prorataInterest } from './money.js';

/** A slip's terms for a late payment; percents are scaled by 10^4 (2% = 20000n). */
export interface OverdueTerms {
  dueDate: string;
  allow: boolean;
  /** Last day a late payment is accepted, inclusive; set whenever `allow` is. */
  dateLimit: string | null;
  penaltyPercent: bigint;
  interestPercentPerMonth: bigint;
}

export const PERCENT_DECIMALS = 4;

export type Settlement =
  | { ok: true; daysLate: number; penalty: bigint; interest: bigint; total: bigint }
  | { ok: false; reason: 'overdue_not_allowed' | 'past_date_limit' };

/**
 * What a payer owes on `paymentDate` for a slip of `valueCents`.
 *
 * - A slip due on a weekend or bank holiday is paid at face value on the next business day
 *   (banks are closed on the due date), so charges start only after that day.
 * - Late: the penalty is `penaltyPercent` of the value, once; interest is simple and pro rata
 *   by calendar day, `interestPercentPerMonth / 30` per day counted from the due date itself.
 *   Both half-up to the cent (money.ts).
 * - Refused when late payment is not allowed, or after `dateLimit`.
 */
export function settlementOn(valueCents: bigint, terms: OverdueTerms, paymentDate: string): Settlement {
  if (paymentDate <= nextBusinessDay(terms.dueDate)) {
    return { ok: true, daysLate: 0, penalty: 0n, interest: 0n, total: valueCents };
  }
  if (!terms.allow) return { ok: false, reason: 'overdue_not_allowed' };
  if (terms.dateLimit !== null && paymentDate > terms.dateLimit) return { ok: false, reason: 'past_date_limit' };
  const daysLate = daysBetween(terms.dueDate, paymentDate);
  const penalty = percentOf(valueCents, terms.penaltyPercent, PERCENT_DECIMALS);
  const interest = prorataInterest(valueCents, terms.interestPercentPerMonth, PERCENT_DECIMALS, daysLate);
  return { ok: true, daysLate, penalty, interest, total: valueCents + penalty + interest };
}
