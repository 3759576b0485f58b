import { sql } from 'kysely';
import type { Executor } from '../../db/connection.js';

/** Five failed logins for one userName within 15 minutes lock it for 15 minutes (contract section 4). */
export const MAX_FAILURES = 5;
export const WINDOW_MS = 15 * 60 * 1000;
export const LOCK_MS = 15 * 60 * 1000;

/** Seconds left on a lock, or 0 when the userName may try. Wall-clock time: the sandbox clock does not unlock. */
export async function lockedForSeconds(db: Executor, userName: string, wallNow: Date): Promise<number> {
  const row = await db.selectFrom('login_attempts').select('locked_until').where('user_name', '=', userName).executeTakeFirst();
  if (!row?.locked_until) return 0;
  const left = Date.parse(row.locked_until) - wallNow.getTime();
  return left > 0 ? Math.ceil(left / 1000) : 0;
}

/**
 * Counts one failure in a single upsert, so concurrent failures on several instances are all
 * counted. A failure after the window has passed starts a new window. Answers true for the one
 * failure that locked the userName (the MAX_FAILURES-th of its window), so the lock is reported
 * once however many failures race.
 */
export async function recordFailure(db: Executor, userName: string, wallNow: Date): Promise<boolean> {
  const now = wallNow.toISOString();
  const windowStart = new Date(wallNow.getTime() - WINDOW_MS).toISOString();
  const lockUntil = new Date(wallNow.getTime() + LOCK_MS).toISOString();
  const expired = sql<boolean>`login_attempts.window_started_at < ${windowStart}`;
  const failures = sql<number>`case when ${expired} then 1 else login_attempts.failures + 1 end`;
  const row = await db
    .insertInto('login_attempts')
    .values({ user_name: userName, failures: 1, window_started_at: now, locked_until: null })
    .onConflict((oc) =>
      oc.column('user_name').doUpdateSet({
        failures,
        window_started_at: sql`case when ${expired} then ${now} else login_attempts.window_started_at end`,
        locked_until: sql`case when ${failures} >= ${MAX_FAILURES} then ${lockUntil} else null end`,
      }),
    )
    .returning(['failures', 'locked_until'])
    .executeTakeFirst();
  return row !== undefined && Number(row.failures) === MAX_FAILURES && row.locked_until !== null;
}

export async function clearFailures(db: Executor, userName: string): Promise<void> {
  await db.deleteFrom('login_attempts').where('user_name', '=', userName).execute();
}
