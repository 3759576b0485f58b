import { randomUUID } from 'node:crypto';

/**
 * A version 7 UUID (RFC 9562): the first 48 bits are the Unix time in milliseconds, the other 74
 * free bits random (taken from a version 4 UUID, which keeps Node's pooled entropy).
 *
 * Why: a table's primary key and every index keyed by the id (events, receivables, the acquirer
 * ledger) then receive each new row at their right-hand edge instead of on a random leaf page.
 * A batch of payments committed together dirties one or two pages of such an index instead of
 * one page per payment, and every dirtied page is written whole to the WAL at COMMIT. 74 random
 * bits keep ids unguessable; ids made in the same millisecond are unordered among themselves,
 * which nothing relies on.
 */
export function timeOrderedUuid(at: Date): string {
  const hex = at.getTime().toString(16).padStart(12, '0').slice(-12);
  const random = randomUUID();
  // random: xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx; the time replaces the first 12 digits, 7 the version.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${random.slice(15)}`;
}
