import type { Selectable } from 'kysely';
import type { Executor } from '../db/connection.js';
import type { JobsTable } from '../db/schema.js';
import type { ClaimedJob, NewJob } from './job-types.js';

// How a job is written to and read from its row in `jobs`: the pieces JobQueue's statements build on.

const MAX_ERROR_LENGTH = 500;

/** A new job's row: `now` stamps it and is the default due time. */
function jobRow(job: NewJob & { maxAttempts: number }, now: Date) {
  const stamp = now.toISOString();
  return {
    kind: job.kind,
    payload: JSON.stringify(job.payload ?? null),
    run_at: (job.runAt ?? now).toISOString(),
    status: 'pending' as const,
    attempts: 0,
    max_attempts: job.maxAttempts,
    dedupe_key: job.dedupeKey ?? null,
    created_at: stamp,
    updated_at: stamp,
  };
}

/**
 * The insert behind enqueue. Jobs whose dedupe key already exists are skipped; answers the ids
 * of the rows inserted. Only JobQueue calls it: every writer enqueues through a JobQueue, in its
 * own transaction.
 */
export async function insertJobs(executor: Executor, jobs: (NewJob & { maxAttempts: number })[], now: Date): Promise<number[]> {
  if (jobs.length === 0) return [];
  const rows = jobs.map((job) => jobRow(job, now));
  const inserted = await executor
    .insertInto('jobs')
    .values(rows)
    // DO NOTHING (not an error) keeps the caller's PostgreSQL transaction usable.
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .returning('id')
    .execute();
  return inserted.map((r) => Number(r.id));
}

/**
 * An update of a claimed job's row that only its holder may make: running, locked by this
 * worker, and under this claim (its attempts count), so an old claim cannot finish a newer one.
 */
export const fence = (db: Executor, id: number, workerId: string, attempts: number) =>
  db.updateTable('jobs').where('id', '=', id).where('status', '=', 'running').where('locked_by', '=', workerId).where('attempts', '=', attempts);

/** The list grown to a power of two by repeating its first item (see renewLeases). */
export function padded<T>(items: readonly T[]): T[] {
  const size = 2 ** Math.ceil(Math.log2(items.length));
  return [...items, ...Array<T>(size - items.length).fill(items[0])];
}

export function toClaimedJob(row: Selectable<JobsTable>): ClaimedJob {
  return {
    id: Number(row.id),
    kind: row.kind,
    payload: JSON.parse(row.payload),
    runAt: new Date(row.run_at),
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    dedupeKey: row.dedupe_key,
    lockedBy: row.locked_by ?? '',
    lockedUntil: new Date(row.locked_until ?? 0),
  };
}

/** The message only (never a stack), on one line, at most 500 characters. */
export function errorMessage(error: unknown): string {
  const raw = error instanceof Error ? error.message || error.name : String(error);
  const message = raw.replace(/\s+/g, ' ').trim();
  return message.length > MAX_ERROR_LENGTH ? message.slice(0, MAX_ERROR_LENGTH - 1) + '…' : message;
}
