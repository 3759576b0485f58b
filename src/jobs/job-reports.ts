import type { Executor } from '../db/connection.js';
import type { FailedJob, JobStatus } from './job-types.js';

// What the queue's table says about its jobs, for the scheduler, /metrics and the operator's dashboard: reads only.

/** Earliest business time at which a pending job falls due (for the scheduler and diagnostics). */
export async function nextDueAt(db: Executor): Promise<Date | null> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.min('run_at').as('next'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return row?.next ? new Date(row.next) : null;
}

/** Jobs by status. */
export async function jobCounts(db: Executor): Promise<Record<JobStatus, number>> {
  const rows = await db
    .selectFrom('jobs')
    .select((eb) => ['status', eb.fn.countAll().as('n')])
    .groupBy('status')
    .execute();
  const counts: Record<JobStatus, number> = { pending: 0, running: 0, done: 0, failed: 0 };
  for (const row of rows) counts[row.status] = Number(row.n);
  return counts;
}

/**
 * The operator dashboard's job health: the last jobs that failed for good, newest
 * first, with their last error (a message, never a stack). A backward range of the
 * (status, run_at, id) index over the failed rows only; run_at is the due time of the last attempt.
 */
export async function lastFailedJobs(db: Executor, limit: number): Promise<FailedJob[]> {
  const rows = await db
    .selectFrom('jobs')
    .select(['id', 'kind', 'attempts', 'max_attempts', 'last_error', 'run_at', 'updated_at'])
    .where('status', '=', 'failed')
    .orderBy('run_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: Number(r.id), kind: r.kind, attempts: r.attempts, maxAttempts: r.max_attempts, lastError: r.last_error, failedAt: r.updated_at }));
}

/** Failed jobs by kind (the failed range of the same index; failed jobs stay until an operator acts). */
export async function failedJobsByKind(db: Executor): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('jobs')
    .select((eb) => ['kind', eb.fn.countAll().as('n')])
    .where('status', '=', 'failed')
    .groupBy('kind')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.kind, Number(r.n)]));
}
