import type { AppContext } from '../context.js';
import { purgeIdempotencyKeys } from '../http/idempotency.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const KIND = 'maintenance.purge';

function nextRun(after: Date): Date {
  return new Date(Math.floor(after.getTime() / DAY_MS) * DAY_MS + DAY_MS);
}

/**
 * A daily purge of expired idempotency keys and finished jobs. The dedupe key is the day, so
 * every instance may schedule it and it still runs once.
 */
export async function registerMaintenanceJobs(ctx: AppContext): Promise<void> {
  const schedule = (at: Date) =>
    ctx.queue.enqueue(ctx.database.db, { kind: KIND, payload: {}, runAt: at, dedupeKey: `${KIND}:${at.toISOString().slice(0, 10)}` });

  ctx.handlers.register(KIND, async (_payload, { clock }) => {
    const wallNow = clock.wallNow();
    await purgeIdempotencyKeys(ctx.database, wallNow);
    // Jobs record business time, so their retention is counted in business time too.
    await ctx.queue.purgeFinished(new Date(clock.now().getTime() - 7 * DAY_MS));
    await schedule(nextRun(clock.now()));
  });
  await schedule(nextRun(ctx.clock.now()));
}
