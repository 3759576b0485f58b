import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import type { ResetCounts, SandboxResettable } from '../../db/sandbox-reset.js';
import { deleteIdempotencyKeys } from '../../http/idempotency.js';
import { Maintenance } from '../../jobs/maintenance.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { SandboxClockService } from './clock-service.js';

export interface ResetResult {
  /** Business time after the reset (real time after a whole reset). */
  now: string;
  /** Rows removed, by table. */
  removed: ResetCounts;
}

export interface SandboxResetDeps {
  database: Database;
  clock: Clock;
  queue: JobQueue;
  sandboxClock: SandboxClockService;
  /** Every module holding business data, each removing its own rows (a module owns its tables). */
  owners: SandboxResettable[];
  /** Throws the 404 error array for an unknown merchant. */
  assertMerchant: (merchantId: string) => Promise<unknown>;
}

/**
 * The sandbox reset: removes the business data (payments, cards, plans and
 * subscriptions, links, slips, Pix charges, receivables, notifications, stored idempotent
 * answers, jobs) and keeps what an integrator configured: merchants, credentials, card keys,
 * pricing, anti-fraud settings and blocklists, acquirer connections, webhook subscriptions.
 */
export class SandboxResetService {
  constructor(private readonly deps: SandboxResetDeps) {}

  /** Everything, and the clock back to real time: the walkthroughs start over on the same credentials. */
  async resetAll(): Promise<ResetResult> {
    const { deps } = this;
    const removed = await deps.sandboxClock.reset(async (trx) => {
      const counts: ResetCounts = {};
      for (const owner of deps.owners) Object.assign(counts, await owner.resetSandboxData(trx));
      counts.idempotency_keys = await deleteIdempotencyKeys(trx);
      // Every job goes: their rows are gone and their due times were set on the old clock.
      counts.jobs = await deps.queue.deleteAll(trx);
      return counts;
    }, true);
    // The daily purge was among the jobs: schedule it again, on the real-time clock.
    await new Maintenance({ database: deps.database, clock: deps.clock, queue: deps.queue }).start();
    return { now: deps.clock.now().toISOString(), removed };
  }

  /**
   * One merchant's data; the clock is shared by every merchant and stays. Their pending jobs
   * stay too (a job's payload names a row, not a merchant): each finds its row gone and ends as
   * a no-op.
   */
  async resetMerchant(merchantId: string): Promise<ResetResult> {
    const { deps } = this;
    await deps.assertMerchant(merchantId);
    const removed = await deps.sandboxClock.reset(async (trx) => {
      const counts: ResetCounts = {};
      for (const owner of deps.owners) Object.assign(counts, await owner.resetSandboxData(trx, merchantId));
      counts.idempotency_keys = await deleteIdempotencyKeys(trx, merchantId);
      return counts;
    }, false);
    return { now: deps.clock.now().toISOString(), removed };
  }
}
