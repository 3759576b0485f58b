import type { ClaimedJob, JobQueue } from './queue.js';

/** Completions gathered into one statement at most; 2 parameters each, far below SQLite's limit. */
const MAX_BATCH = 256;

/**
 * Records job completions in batches (issue 15): `complete` answers once the job's row is
 * marked done, as JobQueue.complete does, but the completions asked for in the same turn of
 * the event loop share one fenced UPDATE (JobQueue.completeMany) instead of one statement each.
 *
 * Why it is safe: a job's handler has finished before its completion is asked for, and a job
 * not yet marked done is simply still running under its lease. Should the process die before
 * the batch is written, the lease ends and the job runs again, exactly as when a process dies
 * between a handler and its single completion today: handlers are idempotent (the billing
 * charge is fenced by its billing row). Fencing is per job, so a job whose lease was lost is
 * answered false (the caller logs it as lost) while the rest of its batch completes.
 */
export class CompletionBatch {
  private pending: { job: ClaimedJob; resolve(done: boolean): void; reject(error: unknown): void }[] = [];
  private scheduled = false;

  constructor(
    private readonly queue: JobQueue,
    private readonly workerId: string,
  ) {}

  complete(job: ClaimedJob, workerId: string): Promise<boolean> {
    // Only this claimer's jobs share its batches' fence.
    if (workerId !== this.workerId) return this.queue.complete(job, workerId);
    return new Promise<boolean>((resolve, reject) => {
      this.pending.push({ job, resolve, reject });
      if (this.pending.length >= MAX_BATCH) void this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        // After the callbacks and promise chains already under way: their completions join.
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    try {
      const done = await this.queue.completeMany(
        batch.map((p) => p.job),
        this.workerId,
      );
      for (const p of batch) p.resolve(done.has(p.job.id));
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  }
}
