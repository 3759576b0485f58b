import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import { DomainError } from '../../domain/errors.js';

export interface Limit {
  /** e.g. `checkout:ip:198.51.100.7`, `checkout:link:<id>`. */
  key: string;
  max: number;
  windowMs: number;
}

/**
 * Fixed-window request counters kept in the database, so every instance behind a load
 * balancer counts against the same limit (an in-memory counter would multiply it by the number
 * of instances). One upsert per key: a hit after the window ended opens a new one. Wall clock:
 * limits are security timers and must not move with the sandbox clock (contract section 12).
 * A fixed window may let up to twice `max` through around a window edge; for slowing card
 * testing down that is enough, and it costs one row per key.
 */
export class RateLimiter {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /** Counts one hit on every key; 429 with Retry-After (seconds) when any is over its limit. */
  async hit(limits: Limit[]): Promise<void> {
    const wallNow = this.clock.wallNow();
    let retryAfterMs = 0;
    for (const limit of limits) {
      const { hits, endsAt } = await this.count(limit, wallNow);
      if (hits > limit.max) retryAfterMs = Math.max(retryAfterMs, endsAt - wallNow.getTime());
    }
    if (retryAfterMs > 0) {
      const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
      throw new DomainError('too_many', 'rate_limited', `Too many payment attempts; try again in ${seconds} seconds.`).retryAfter(seconds);
    }
  }

  private async count(limit: Limit, wallNow: Date): Promise<{ hits: number; endsAt: number }> {
    const now = wallNow.toISOString();
    const endsAt = new Date(wallNow.getTime() + limit.windowMs).toISOString();
    const ended = sql<boolean>`rate_limit_windows.window_ends_at <= ${now}`;
    const row = await this.database.db
      .insertInto('rate_limit_windows')
      .values({ key: limit.key, hits: 1, window_started_at: now, window_ends_at: endsAt })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          hits: sql`case when ${ended} then 1 else rate_limit_windows.hits + 1 end`,
          window_started_at: sql`case when ${ended} then ${now} else rate_limit_windows.window_started_at end`,
          window_ends_at: sql`case when ${ended} then ${endsAt} else rate_limit_windows.window_ends_at end`,
        }),
      )
      .returning(['hits', 'window_ends_at'])
      .executeTakeFirstOrThrow();
    // A hit that opened a window also sweeps windows that ended, so the table stays small
    // without a scheduled job.
    if (Number(row.hits) === 1) await this.database.db.deleteFrom('rate_limit_windows').where('window_ends_at', '<=', now).execute();
    return { hits: Number(row.hits), endsAt: Date.parse(row.window_ends_at) };
  }
}
