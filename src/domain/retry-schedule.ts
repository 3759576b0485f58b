/**
 * Recurrence retries after an insufficient-funds decline (contract section 8): the k-th retry
 * is at D + 2^k days from the due date D (D+2, D+4, D+8, D+16), at most `attempts` retries.
 * Offsets count from the due date, not from the previous try, so a late-running job does not
 * push the whole schedule back. Retries end by D+16, which is why Custom plans need an
 * interval of at least 20 days: a billing's retries stay inside its own cycle.
 * Only declines that may succeed later (51) are retried; that choice is the caller's.
 */
import { addDays } from './calendar.js';

export const MAX_RETRY_ATTEMPTS = 4;

const MS_PER_DAY = 86_400_000;

/** Days after the due date of the k-th retry (k >= 1): 2, 4, 8, 16. */
export function retryOffsetDays(k: number): number {
  if (!Number.isInteger(k) || k < 1 || k > MAX_RETRY_ATTEMPTS) throw new RangeError(`retry index out of range: ${k}`);
  return 2 ** k;
}

/**
 * When to charge again after `failuresSoFar` failed charges (the first charge at D included),
 * or null when the `attempts` allowed retries are used up and the billing is Denied.
 * A 'YYYY-MM-DD' due date gives a date; a Date (a billing's `expireAt`) gives the instant
 * 2^k whole days later, at the same UTC time of day.
 */
export function nextRetryDate(dueDate: string, failuresSoFar: number, attempts: number): string | null;
export function nextRetryDate(dueDate: Date, failuresSoFar: number, attempts: number): Date | null;
export function nextRetryDate(dueDate: string | Date, failuresSoFar: number, attempts: number): string | Date | null {
  if (!Number.isInteger(attempts) || attempts < 0 || attempts > MAX_RETRY_ATTEMPTS) {
    throw new RangeError(`attempts must be 0..${MAX_RETRY_ATTEMPTS}`);
  }
  // Zero failures means nothing to retry yet: the first charge is at the due date itself.
  if (!Number.isInteger(failuresSoFar) || failuresSoFar < 1) throw new RangeError('failuresSoFar must be >= 1');
  const k = failuresSoFar; // after the k-th failure comes the k-th retry
  if (k > attempts) return null;
  const days = retryOffsetDays(k);
  return typeof dueDate === 'string' ? addDays(dueDate, days) : new Date(dueDate.getTime() + days * MS_PER_DAY);
}

/** The whole schedule for a plan: retryDates('2026-01-01', 4) = 01-03, 01-05, 01-09, 01-17. */
export function retryDates(dueDate: string, attempts: number): string[] {
  const dates: string[] = [];
  for (let failures = 1; ; failures++) {
    const next = nextRetryDate(dueDate, failures, attempts);
    if (next === null) return dates;
    dates.push(next);
  }
}
