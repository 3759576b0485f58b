import { addDays } from '../../domain/calendar.js';

/**
 * The merchant's business days, in Brasília time. Brasília has kept UTC-3 all year since 2019
 * (no daylight saving): a business day is [03:00Z, 03:00Z next day).
 */
const BRT_OFFSET_MS = 3 * 3600_000;

/** The Brasília date of an instant (pass the business clock's now for "today"). */
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
