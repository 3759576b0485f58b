import { errorMessage, type ClaimedJob, type JobQueue } from './queue.js';
import type { JobLogger } from './run-job.js';

/**
 * The heartbeat of one claimer (the worker, or one sandbox advance): while it holds jobs, it
 * renews their lease every `leaseMs / 3`, so a lease can be short (seconds) and still never
 * end under a live but slow job, while a dead process's jobs are free again within one lease.
 *
 * The timer runs only while something is held (`hold` starts it, the last `release` or `stop`
 * ends it) and is unref()ed: it never keeps the process alive. A failed renewal is logged
 * (message only) and tried again at the next beat; two more beats fit in the lease.
 */
export class LeaseKeeper {
  /** Job id -> claims of it in flight (two only if this claimer re-took its own expired job). */
  private readonly held = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;

  constructor(
    private readonly queue: JobQueue,
    readonly workerId: string,
    readonly leaseMs: number,
    private readonly logger: JobLogger,
  ) {}

  /** From the claim until the outcome is recorded (or given up). */
  hold(job: ClaimedJob): void {
    this.held.set(job.id, (this.held.get(job.id) ?? 0) + 1);
    if (!this.timer) {
      this.timer = setInterval(() => void this.beat(), Math.max(1, Math.floor(this.leaseMs / 3)));
      this.timer.unref();
    }
  }

  release(job: ClaimedJob): void {
    const left = (this.held.get(job.id) ?? 0) - 1;
    if (left > 0) this.held.set(job.id, left);
    else this.held.delete(job.id);
    if (this.held.size === 0) this.clearTimer();
  }

  /** Forgets every job (an advance that ended, however) and waits for a renewal in progress. */
  async stop(): Promise<void> {
    this.held.clear();
    this.clearTimer();
    await this.beating;
  }

  /** One renewal now (the timer's tick; tests call it directly). A beat still running is not doubled. */
  beat(): Promise<void> {
    if (!this.beating && this.held.size > 0) {
      this.beating = this.renew().finally(() => {
        this.beating = undefined;
      });
    }
    return this.beating ?? Promise.resolve();
  }

  private async renew(): Promise<void> {
    try {
      await this.queue.renewLeases(this.workerId, [...this.held.keys()], this.leaseMs);
    } catch (error) {
      this.logger.error({ workerId: this.workerId, error: errorMessage(error) }, 'job lease renewal failed');
    }
  }

  private clearTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
