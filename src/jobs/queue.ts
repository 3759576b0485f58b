import type { Selectable, SelectQueryBuilder } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database, Executor } from '../db/connection.js';
import type { DB, JobsTable } from '../db/schema.js';
import { retryDelayMs } from './backoff.js';
import { failedJobsByKind, jobCounts, lastFailedJobs, nextDueAt } from './job-reports.js';
import { errorMessage, fence, insertJobs, padded, toClaimedJob } from './job-rows.js';
import { DEFAULT_LEASE_MS, DEFAULT_MAX_ATTEMPTS, type ClaimedJob, type ClaimOptions, type FailedJob, type FailOutcome, type JobStatus, type MaxAttemptsSource, type NewJob, type QueueObservers } from './job-types.js';

export { errorMessage } from './job-rows.js';
export * from './job-types.js';

/**
 * The durable job table (transactional outbox). Times: `run_at`, `created_at` and `updated_at`
 * are business time (clock.now()), so the sandbox clock drives scheduling; `locked_until` is
 * wall-clock, so a lease expires in real time whatever the sandbox clock does.
 */
export class JobQueue {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly defaults?: MaxAttemptsSource,
    private readonly observers: QueueObservers = {},
  ) {}

  /**
   * Inserts through the caller's executor so the job commits or rolls back with the business
   * write. Returns the new id, or null when a job with the same dedupe key already exists.
   */
  async enqueue(executor: Executor, job: NewJob): Promise<number | null> {
    const [id] = await this.enqueueMany(executor, [job]);
    return id ?? null;
  }

  /**
   * Several jobs in one statement, through the caller's executor like `enqueue` (the webhook
   * outbox: a delivery job per notification of one change). Jobs whose dedupe key already
   * exists are skipped; answers the ids of the rows inserted, in order.
   */
  async enqueueMany(executor: Executor, jobs: readonly NewJob[]): Promise<number[]> {
    const withAttempts = jobs.map((job) => ({ ...job, maxAttempts: job.maxAttempts ?? this.defaults?.maxAttemptsFor(job.kind) ?? DEFAULT_MAX_ATTEMPTS }));
    return insertJobs(executor, withAttempts, this.clock.now());
  }

  /**
   * Cancels the pending job with this dedupe key, in the caller's transaction (a refund
   * answered before its recovery job fell due, a link paid before it expired). A job already
   * running is left alone: its handler sees the new state and does nothing. Answers how many
   * were cancelled (0 or 1).
   */
  async cancel(executor: Executor, dedupeKey: string): Promise<number> {
    const result = await executor.deleteFrom('jobs').where('dedupe_key', '=', dedupeKey).where('status', '=', 'pending').executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * Makes the job with `job.dedupeKey` due again at `job.runAt` (default now) with a fresh
   * attempt budget, or enqueues it when there is none (a purged or never-made job). Refused
   * ('running') while a worker holds it: re-arming then could run it twice at once.
   */
  async rearm(executor: Executor, job: NewJob & { dedupeKey: string }): Promise<'enqueued' | 'rearmed' | 'running'> {
    const now = this.clock.now().toISOString();
    const result = await executor
      .updateTable('jobs')
      .set({ status: 'pending', run_at: (job.runAt ?? this.clock.now()).toISOString(), attempts: 0, locked_by: null, locked_until: null, last_error: null, updated_at: now })
      .where('dedupe_key', '=', job.dedupeKey)
      .where('status', '!=', 'running')
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) > 0) return 'rearmed';
    return (await this.enqueue(executor, job)) === null ? 'running' : 'enqueued';
  }

  /**
   * Atomically takes up to `limit` jobs: running ones whose lease has expired (their worker
   * died) first, then pending ones due by `dueBy`, each group oldest run_at first.
   */
  async claim(workerId: string, options: ClaimOptions): Promise<ClaimedJob[]> {
    if (options.limit <= 0 || options.kinds?.length === 0) return [];
    await this.failAbandoned();
    const wallNow = this.clock.wallNow().toISOString();
    const dueBy = (options.dueBy ?? this.clock.now()).toISOString();
    // Two statements, not one with an OR: each is a range scan of the (status, run_at, id) index in time order
    // that stops at `limit`, so a claim costs the same with 10 or 100,000 jobs due. (One query
    // with OR made both engines collect and sort every due job on each claim.)
    // Re-take a dead worker's job only while it has attempts left; failAbandoned ends the rest.
    const lost = await this.claimWhere(workerId, options, (q) =>
      q.where('status', '=', 'running').where('locked_until', '<', wallNow).where('run_at', '<=', dueBy).where((eb) => eb('attempts', '<', eb.ref('max_attempts'))),
    );
    for (const row of lost) this.observers.metrics?.leaseExpired(row.kind, 'retaken');
    const rest = options.limit - lost.length;
    // `<=`: a job due exactly now is due.
    const due = rest > 0 ? await this.claimWhere(workerId, { ...options, limit: rest }, (q) => q.where('status', '=', 'pending').where('run_at', '<=', dueBy)) : [];
    // RETURNING order is unspecified; callers rely on time order.
    return [...lost, ...due].map(toClaimedJob).sort((a, b) => a.runAt.getTime() - b.runAt.getTime() || a.id - b.id);
  }

  private async claimWhere(
    workerId: string,
    options: ClaimOptions,
    filter: (q: SelectQueryBuilder<DB, 'jobs', { id: number }>) => SelectQueryBuilder<DB, 'jobs', { id: number }>,
  ): Promise<Selectable<JobsTable>[]> {
    const db = this.database.db;
    const lockedUntil = new Date(this.clock.wallNow().getTime() + (options.leaseMs ?? DEFAULT_LEASE_MS));
    let candidates = filter(db.selectFrom('jobs').select('id')).orderBy('run_at').orderBy('id').limit(options.limit);
    if (options.kinds) candidates = candidates.where('kind', 'in', options.kinds);
    // PostgreSQL: several instances claim at once. FOR UPDATE locks the chosen rows until the
    // UPDATE commits, and SKIP LOCKED makes a concurrent claimer pass over them to the next ones
    // instead of waiting and then taking the same job. SQLite has a single writer and runs this
    // one statement atomically, so no two claimers can see the same row as free (and it has no
    // such clause).
    if (this.database.dialect === 'postgres') candidates = candidates.forUpdate().skipLocked();
    return db
      .updateTable('jobs')
      .set((eb) => ({
        status: 'running',
        locked_by: workerId,
        locked_until: lockedUntil.toISOString(),
        attempts: eb('attempts', '+', 1),
        updated_at: this.clock.now().toISOString(),
      }))
      .where('id', 'in', candidates)
      .returningAll()
      .execute();
  }

  /** Marks the job done; false when this worker no longer holds it (its lease expired and another took it). */
  async complete(job: ClaimedJob, workerId: string): Promise<boolean> {
    const result = await fence(this.database.db, job.id, workerId, job.attempts).set({ status: 'done', locked_until: null, updated_at: this.clock.now().toISOString() }).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Marks several jobs done in one statement, each fenced as `complete` fences one; answers the
   * ids this worker still held (the others' leases were taken over).
   */
  async completeMany(jobs: readonly ClaimedJob[], workerId: string): Promise<Set<number>> {
    if (jobs.length === 0) return new Set();
    // Padded to a power of two (repeating a claim) so the statement has one of a few texts:
    // SQLite's prepared statements are cached by text.
    const claims = padded(jobs.map((job) => [job.id, job.attempts] as const));
    const rows = await this.database.db
      .updateTable('jobs')
      .set({ status: 'done', locked_until: null, updated_at: this.clock.now().toISOString() })
      .where('status', '=', 'running')
      .where('locked_by', '=', workerId)
      .where((eb) => eb(eb.refTuple('id', 'attempts'), 'in', claims.map(([id, attempts]) => eb.tuple(id, attempts))))
      .returning('id')
      .execute();
    return new Set(rows.map((row) => Number(row.id)));
  }

  /**
   * Records a failed attempt: back to pending with exponential backoff (or at `retryAt`) while
   * attempts remain, else failed for good. Only the message is stored: stacks stay out of the
   * database and out of any API that shows the job.
   */
  async fail(job: ClaimedJob, workerId: string, error: unknown, options: { retryAt?: Date } = {}): Promise<FailOutcome> {
    const now = this.clock.now();
    const retry = job.attempts < job.maxAttempts;
    const runAt = options.retryAt ?? new Date(now.getTime() + retryDelayMs(job.attempts));
    const result = await this.fenced(job, workerId)
      .set({
        status: retry ? 'pending' : 'failed',
        ...(retry ? { run_at: runAt.toISOString() } : {}),
        locked_until: null,
        last_error: errorMessage(error),
        updated_at: now.toISOString(),
      })
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return 'lost';
    this.observers.metrics?.jobFailed(job.kind, retry ? 'retry' : 'failed');
    return retry ? 'retry' : 'failed';
  }

  /** Puts the job back for `at` without spending an attempt (the handler asked to wait, nothing failed). */
  async reschedule(job: ClaimedJob, workerId: string, at: Date): Promise<boolean> {
    const result = await this.fenced(job, workerId)
      .set((eb) => ({
        status: 'pending',
        run_at: at.toISOString(),
        attempts: eb('attempts', '-', 1),
        locked_until: null,
        updated_at: this.clock.now().toISOString(),
      }))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * The heartbeat: pushes the lease of the jobs this worker still runs (`jobIds`) to `leaseMs`
   * from now, in one statement. Only while the claim holds them (running, locked by this
   * worker): a job another worker took over is not taken back. Limited to the ids the caller
   * runs, so a job whose outcome could not be recorded (a database error) is not kept alive by
   * a worker that no longer runs it: its lease ends and another claim retakes it. Answers how
   * many leases were renewed.
   */
  async renewLeases(workerId: string, jobIds: readonly number[], leaseMs: number): Promise<number> {
    if (jobIds.length === 0) return 0;
    // Padded to a power of two (repeating an id) so the statement has one of a few texts:
    // SQLite's prepared statements are cached by text.
    const ids = padded(jobIds);
    const result = await this.database.db
      .updateTable('jobs')
      .set({ locked_until: new Date(this.clock.wallNow().getTime() + leaseMs).toISOString() })
      .where('status', '=', 'running')
      .where('locked_by', '=', workerId)
      .where('id', 'in', ids)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /**
   * Takeover at start: ends the leases of the running jobs that this instance's previous
   * process left behind (it was killed), so that the next claim retakes them at once instead of
   * after their lease; that claim counts the attempt, and failAbandoned ends a job that was on
   * its last one. Jobs of this process (`workerId`, and `${workerId}:...` for its sandbox
   * advances) are never touched.
   *
   * Which jobs were the previous process's:
   * - SQLite: every running job. The database has one writer, so one instance; its running jobs
   *   not held by this process can only be a dead process's.
   * - PostgreSQL: several instances share the database, so only the running jobs locked by a
   *   worker id of this instance (`${instanceId}/...`, INSTANCE_ID names the instance across
   *   restarts). Another instance's jobs wait for their lease: that instance may be alive.
   *
   * Two live processes misconfigured with one INSTANCE_ID could take each other's running jobs
   * this way. Fencing (attempts + locked_by) still records one outcome only, and the business
   * fences (the billing claim, the payment's idempotency key at the acquirer) still prevent a
   * second charge; the cost is a handler run again.
   *
   * Answers how many jobs were released.
   */
  async releaseAbandoned(owner: { instanceId: string; workerId: string }): Promise<number> {
    const wallNow = this.clock.wallNow().getTime();
    const own = owner.workerId;
    const prefix = `${owner.instanceId}/`;
    let query = this.database.db
      .updateTable('jobs')
      // In the past, so the next claim (`locked_until < now`) sees the lease as over.
      .set({ locked_until: new Date(wallNow - 1).toISOString() })
      .where('status', '=', 'running')
      // substr rather than LIKE: an instance id may hold `_`, a LIKE wildcard.
      .where((eb) => eb.or([eb('locked_by', 'is', null), eb(eb.fn('substr', ['locked_by', eb.val(1), eb.val(own.length)]), '!=', own)]));
    if (this.database.dialect === 'postgres') {
      query = query.where((eb) => eb(eb.fn('substr', ['locked_by', eb.val(1), eb.val(prefix.length)]), '=', prefix));
    }
    const result = await query.executeTakeFirst();
    const released = Number(result.numUpdatedRows);
    if (released > 0) this.observers.metrics?.takenOver(released);
    return released;
  }

  /** Earliest business time at which a pending job falls due (for the scheduler and diagnostics). */
  nextDueAt(): Promise<Date | null> {
    return nextDueAt(this.database.db);
  }

  counts(): Promise<Record<JobStatus, number>> {
    return jobCounts(this.database.db);
  }

  /** The operator dashboard's job health: the last jobs that failed for good, newest first. */
  lastFailed(limit: number): Promise<FailedJob[]> {
    return lastFailedJobs(this.database.db, limit);
  }

  /** Failed jobs by kind (failed jobs stay until an operator acts). */
  failedByKind(): Promise<Record<string, number>> {
    return failedJobsByKind(this.database.db);
  }

  /**
   * Sandbox reset: every job goes (their rows are gone and their due times were on the old
   * clock). Jobs running meanwhile find nothing and finish as no-ops; the caller reschedules
   * the maintenance purge.
   */
  async deleteAll(executor: Executor): Promise<number> {
    return Number((await executor.deleteFrom('jobs').executeTakeFirst()).numDeletedRows);
  }

  /** Deletes done jobs last touched before `olderThan` (business time). Failed jobs stay for diagnosis. */
  async purgeFinished(olderThan: Date): Promise<number> {
    const result = await this.database.db
      .deleteFrom('jobs')
      .where('status', '=', 'done')
      .where('updated_at', '<', olderThan.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * Fencing: a write about a claimed job applies only while this claim still holds it. The
   * attempts count identifies the claim, so even a re-used worker id cannot finish a newer claim.
   */
  private fenced(job: ClaimedJob, workerId: string) {
    return fence(this.database.db, job.id, workerId, job.attempts);
  }

  /**
   * A job whose worker died on its last attempt would otherwise stay running forever. No
   * handler ran to log it, so its failure is reported here (the same line as runJob's).
   */
  private async failAbandoned(): Promise<void> {
    const error = 'lease expired on the last attempt (the worker stopped or took too long)';
    const ended = await this.database.db
      .updateTable('jobs')
      .set({
        status: 'failed',
        locked_until: null,
        last_error: error,
        updated_at: this.clock.now().toISOString(),
      })
      .where('status', '=', 'running')
      .where('locked_until', '<', this.clock.wallNow().toISOString())
      .where((eb) => eb('attempts', '>=', eb.ref('max_attempts')))
      .returning(['id', 'kind', 'attempts'])
      .execute();
    for (const job of ended) {
      this.observers.metrics?.leaseExpired(job.kind, 'failed');
      this.observers.metrics?.jobFailed(job.kind, 'failed');
      this.observers.logger?.error({ event: 'job.failed', jobId: Number(job.id), kind: job.kind, attempt: job.attempts, error, outcome: 'failed' }, 'job failed');
    }
  }
}
