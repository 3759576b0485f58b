import { errorMessage } from '../../jobs/queue.js';
import { RetryLater } from '../../jobs/registry.js';
import type { Authorizations } from './authorization.js';
import type { PaymentAuthentication } from './authentication.js';
import type { PaymentDeps } from './deps.js';
import { paymentsRepository } from './repository.js';

/** Payments a recovery pass claims at once (each is a lookup at the acquirer, run side by side). */
export const RECOVERY_BATCH = 32;
/**
 * How long a claimed payment is left to its sweeper (business time): longer than a lookup and
 * the wait for a short settle window (Authorizations.resolveWaiting), so a live sweeper is never
 * doubled; a dead one's payments come back after it.
 */
const CLAIM_MS = 120_000;
/** A lookup that failed (the acquirer or our database unreachable) is tried again after this. */
const RETRY_MS = 30_000;

/**
 * The recovery of payments left Pending (an answer lost, a process killed between the send and
 * the record): instead of a job per payment, each payment carries `recover_at`, written with
 * its insert, and a pass claims those whose time has come. A payment answered in time never
 * costs the pass anything: it is no longer Pending, so the partial index skips it.
 */
export class PaymentRecovery {
  constructor(
    private readonly ctx: PaymentDeps,
    private readonly authorizations: Authorizations,
    private readonly authentication: PaymentAuthentication,
  ) {}

  /** One pass over the payments due by `dueBy` (business time); true when the batch was full. */
  async pass(dueBy: Date = this.ctx.clock.now()): Promise<boolean> {
    const { ctx } = this;
    const until = new Date(ctx.clock.now().getTime() + CLAIM_MS).toISOString();
    const ids = await paymentsRepository.claimRecoveries(ctx.database.db, ctx.database.dialect, dueBy.toISOString(), until, RECOVERY_BATCH);
    await Promise.all(ids.map((id) => this.recoverOne(id)));
    // Challenges past their deadline end here too: the same clock, the same pass.
    const expiredFull = await this.authentication.expire(dueBy);
    return ids.length === RECOVERY_BATCH || expiredFull;
  }

  private async recoverOne(paymentId: string): Promise<void> {
    const { ctx } = this;
    try {
      await this.authorizations.recover(paymentId);
    } catch (error) {
      const retry = error instanceof RetryLater;
      if (!retry) ctx.logger.warn({ paymentId, error: errorMessage(error) }, 'payment recovery failed: asked again later');
      const at = retry ? error.at : new Date(ctx.clock.now().getTime() + RETRY_MS);
      await paymentsRepository.setRecoverAt(ctx.database.db, paymentId, at.toISOString()).catch(() => {
        // Unwritten, the claim's own time stands: the payment is asked about again after it.
      });
    }
  }
}
