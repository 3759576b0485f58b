/**
 * Brasília calendar dates. The API Pix dates (due dates, settlement dates, `DPP`) and the
 * merchant's business days are `America/Sao_Paulo` dates, whatever the server's own zone.
 * Brasília has kept UTC-3 all year since 2019 (no daylight saving): a day is
 * [03:00Z, 03:00Z next day).
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
