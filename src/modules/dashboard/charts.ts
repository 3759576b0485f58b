import { addDays } from '../../domain/calendar.js';
import type { DayFigures } from '../payments/reads.js';

/**
 * The home page's figures. What counts, per the contract (section 6), is decided by
 * the payments module (reads.ts dayFigures): a sale is a payment that stands approved
 * (Authorized or Paid; a Canceled one no longer counts); approved means the acquirer said 00;
 * the rate is over every decided payment (not Pending); a decline is a Denied payment, by code.
 */

/** Brasília has kept UTC-3 all year since 2019 (no daylight saving): a business day is [03:00Z, 03:00Z next). */
const BRT_OFFSET_MS = 3 * 3600_000;

export function brasiliaDate(instant: Date): string {
  return new Date(instant.getTime() - BRT_OFFSET_MS).toISOString().slice(0, 10);
}

/** The UTC instant at which a Brasília date starts. */
export function brasiliaStart(date: string): string {
  return `${date}T03:00:00.000Z`;
}

/** The `count` Brasília days ending `today`, oldest first, with their UTC bounds. */
export function lastDays(today: string, count: number): { date: string; from: string; to: string }[] {
  return Array.from({ length: count }, (_, i) => {
    const date = addDays(today, i + 1 - count);
    return { date, from: brasiliaStart(date), to: brasiliaStart(addDays(date, 1)) };
  });
}

export interface HomeFigures {
  days: DayFigures[];
  declines: { returnCode: string; count: number }[];
  total: { sales: bigint; approved: number; decided: number };
}

export function homeFigures(days: DayFigures[], declines: { returnCode: string; count: number }[]): HomeFigures {
  return {
    days,
    declines,
    total: {
      sales: days.reduce((s, d) => s + d.sales, 0n),
      approved: days.reduce((s, d) => s + d.approved, 0),
      decided: days.reduce((s, d) => s + d.decided, 0),
    },
  };
}

/** A 10,4 scaled value (receivables) in cents, rounded half up, for the charts and brl(). */
export function d4ToCents(value: bigint): bigint {
  return value >= 0n ? (value + 50n) / 100n : -((-value + 50n) / 100n);
}
