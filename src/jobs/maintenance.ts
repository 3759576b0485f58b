import type { Clock } from '../clock.js';
import type { Database } from '../db/connection.js';
import type { JobQueue } from './queue.js';
import type { JobDefinition } from './registry.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const KIND = 'maintenance.purge';

function nextRun(after: Date): Date {
  return new Date(Math.floor(after.getTime() / DAY_MS) * DAY_MS + DAY_MS);
}

/** Removes what expired before `wallNow` (the root passes the purge of idempotency keys; an instance that only schedules needs none). */
export type Purger = (wallNow: Date) => Promise<unknown>;

/**
 * A daily purge of finished jobs and of what its purgers remove (expired idempotency keys). The
 * dedupe key is the day, so every instance may schedule it and it still runs once.
 */
export class Maintenance {
  constructor(private readonly deps: { database: Database; clock: Clock; queue: JobQueue; purgers?: readonly Purger[] }) {}

  jobs(): JobDefinition[] {
    return [
      {
        kind: KIND,
        handler: async (_payload, { clock }) => {
          const wallNow = clock.wallNow();
          for (const purge of this.deps.purgers ?? []) await purge(wallNow);
          // Jobs record business time, so their retention is counted in business time too.
          await this.deps.queue.purgeFinished(new Date(clock.now().getTime() - 7 * DAY_MS));
          await this.schedule(nextRun(clock.now()));
        },
      },
    ];
  }

  /** Schedules the next purge (each process at start; each run schedules the one after). */
  async start(): Promise<void> {
    await this.schedule(nextRun(this.deps.clock.now()));
  }

  private async schedule(at: Date): Promise<void> {
    await this.deps.queue.enqueue(this.deps.database.db, { kind: KIND, payload: {}, runAt: at, dedupeKey: `${KIND}:${at.toISOString().slice(0, 10)}` });
  }
}
