import type { ClaimedJob } from '../../jobs/queue.js';
import type { JobHandlers } from '../../jobs/registry.js';

/**
 * The batches a sandbox advance has started and goes on without (a billing run waiting on the
 * acquirer): how many jobs of each kind are running, and the first failure, which the advance
 * rethrows at its next wait.
 */
export class BatchesInFlight {
  private readonly running = new Set<Promise<void>>();
  private readonly jobs = new Map<string, number>();
  private failure: { error: unknown } | undefined;

  get empty(): boolean {
    return this.running.size === 0;
  }

  busy(kind: string): number {
    return this.jobs.get(kind) ?? 0;
  }

  add(kind: string, jobs: number, work: Promise<unknown>): void {
    this.jobs.set(kind, this.busy(kind) + jobs);
    const done: Promise<void> = work
      .then(
        () => undefined,
        (error: unknown) => {
          this.failure ??= { error };
        },
      )
      .finally(() => {
        this.jobs.set(kind, this.busy(kind) - jobs);
        this.running.delete(done);
      });
    this.running.add(done);
  }

  /** Until fewer than `limit` jobs of `kind` run. */
  async roomFor(kind: string, limit: number): Promise<void> {
    while (this.busy(kind) >= limit && this.running.size > 0) await Promise.race(this.running);
    this.rethrow();
  }

  /** Until every batch has ended. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
    this.rethrow();
  }

  private rethrow(): void {
    const failure = this.failure;
    this.failure = undefined;
    if (failure) throw failure.error;
  }
}

/** A stretch's jobs as tasks: a batch kind's in batches of its size, any other alone. */
export function tasksOf(jobs: ClaimedJob[], handlers: JobHandlers): ClaimedJob[][] {
  const tasks: ClaimedJob[][] = [];
  const open = new Map<string, ClaimedJob[]>();
  for (const job of jobs) {
    const batch = handlers.batchOf(job.kind);
    if (!batch) {
      tasks.push([job]);
      continue;
    }
    let task = open.get(job.kind);
    if (!task || task.length >= batch.size) {
      task = [];
      open.set(job.kind, task);
      tasks.push(task);
    }
    task.push(job);
  }
  return tasks;
}
