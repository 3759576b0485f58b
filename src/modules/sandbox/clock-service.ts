import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { VirtualClock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import type { DB } from '../../db/schema.js';
import { LeaseKeeper } from '../../jobs/lease-keeper.js';
import { DEFAULT_LEASE_MS, type ClaimedJob, type JobQueue } from '../../jobs/queue.js';
import type { BatchOptions, JobHandlers } from '../../jobs/registry.js';
import { runJob, runJobBatch, silentLogger, type JobLogger, type JobRunner } from '../../jobs/run-job.js';
import type { Worker } from '../../jobs/worker.js';
import { BatchesInFlight, tasksOf } from './batches-in-flight.js';

export const CLOCK_OFFSET_SETTING = 'clock_offset_ms';
/** Bumped by each reset: an instance that sees a new generation adopts the stored offset even though it is smaller. */
export const CLOCK_GENERATION_SETTING = 'clock_generation';
/** Stops a job that keeps re-enqueueing itself before the target from looping forever. */
export const MAX_JOBS_PER_ADVANCE = 1_000_000;
/** Jobs due at one instant claimed together: one claim per batch instead of one per job. */
const BATCH = 200;
/**
 * A batch kind's jobs due within this of the earliest are charged as one batch (at the latest
 * one's time), as a worker polling the queue takes together what fell due since its last claim:
 * billings due one after another through a day then share their claims and their records. A
 * minute is below anything a merchant schedules (due dates and retries are days apart).
 */
const BATCH_WINDOW_MS = 60_000;
/** Jobs of a parallel kind run at once within a batch, unless told (the context passes WORKER_CONCURRENCY). */
const DEFAULT_PARALLEL = 8;

export interface SandboxClockOptions {
  logger?: JobLogger;
  maxJobsPerAdvance?: number;
  /** The lease of the jobs an advance claims (renewed while it holds them); default the worker's. */
  leaseMs?: number;
  /**
   * Independent jobs (a parallel kind: two billings' charges) run at once within an instant, as
   * the production worker runs WORKER_CONCURRENCY of them. More at once makes SQLite's group
   * commits larger: more charges share each COMMIT.
   */
  parallel?: number;
  /**
   * Work outside the job queue that must be done before time moves on, run before each round of
   * jobs with the advance's target (the payments relay and the recovery of Pending payments).
   */
  beforeRound?: (target: Date) => Promise<void>;
}

export interface AdvanceResult {
  now: Date;
  jobsRun: number;
}

export interface AdvanceBy {
  days?: number;
  hours?: number;
  minutes?: number;
}

/**
 * The sandbox clock (contract section 12): moves business time forward and, before returning,
 * runs every job due up to the new time, in time order, with the clock standing at each job's
 * due time while it runs.
 */
export class SandboxClockService {
  private readonly runner: JobRunner;
  private readonly maxJobs: number;
  private readonly leaseMs: number;
  /** Independent jobs run at once within an instant (options.parallel). */
  readonly parallel: number;
  private readonly beforeRound?: (target: Date) => Promise<void>;
  /** Advances run one after the other: two interleaved would run jobs out of time order. */
  private tail: Promise<unknown> = Promise.resolve();
  /** The reset generation this process has adopted ('0': never reset). */
  private generation = '0';

  constructor(
    private readonly database: Database,
    private readonly clock: VirtualClock,
    queue: JobQueue,
    handlers: JobHandlers,
    private readonly worker?: Worker,
    options: SandboxClockOptions = {},
  ) {
    this.runner = { queue, handlers, clock, logger: options.logger ?? silentLogger };
    this.maxJobs = options.maxJobsPerAdvance ?? MAX_JOBS_PER_ADVANCE;
    this.leaseMs = options.leaseMs ?? worker?.leaseMs ?? DEFAULT_LEASE_MS;
    this.parallel = options.parallel ?? DEFAULT_PARALLEL;
    this.beforeRound = options.beforeRound;
  }

  /** Adopts the persisted offset (a restart, or another instance that advanced). */
  async load(): Promise<void> {
    const rows = await this.database.db
      .selectFrom('settings')
      .select(['key', 'value'])
      .where('key', 'in', [CLOCK_OFFSET_SETTING, CLOCK_GENERATION_SETTING])
      .execute();
    const value = (key: string) => rows.find((r) => r.key === key)?.value;
    const offset = Number(value(CLOCK_OFFSET_SETTING) ?? 0);
    const generation = value(CLOCK_GENERATION_SETTING) ?? '0';
    if (generation !== this.generation) {
      // Another process reset the clock since this one last looked: time goes back here too.
      this.generation = generation;
      if (Number.isFinite(offset)) this.clock.resetTo(offset);
    } else if (Number.isFinite(offset)) this.clock.syncOffset(offset);
  }

  /**
   * The sandbox reset (src/modules/sandbox/reset-service.ts): with the local worker paused and
   * no advance running, runs `removeData` in one transaction and, when `clockToo`, returns the
   * clock to real time in that same transaction (a new generation, so other instances follow).
   */
  reset<T>(removeData: (trx: Transaction<DB>) => Promise<T>, clockToo: boolean): Promise<T> {
    return this.serialized(async () => {
      await this.worker?.pause();
      const generation = clockToo ? randomUUID() : undefined;
      try {
        const result = await this.database.db.transaction().execute(async (trx) => {
          const removed = await removeData(trx);
          if (generation) {
            for (const [key, value] of [[CLOCK_OFFSET_SETTING, '0'], [CLOCK_GENERATION_SETTING, generation]]) {
              await trx
                .insertInto('settings')
                .values({ key, value })
                .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
                .execute();
            }
          }
          return removed;
        });
        if (generation) {
          this.generation = generation;
          this.clock.resetTo(0);
        }
        return result;
      } finally {
        this.worker?.resume();
      }
    });
  }

  now(): Date {
    return this.clock.now();
  }

  /** Moves to `target`; a target in the past runs what is already due and leaves the clock where it is. */
  advance(target: Date): Promise<AdvanceResult> {
    return this.serialized(() => this.advanceTo(() => target));
  }

  advanceBy({ days = 0, hours = 0, minutes = 0 }: AdvanceBy): Promise<AdvanceResult> {
    const ms = ((days * 24 + hours) * 60 + minutes) * 60_000;
    // The target is computed once this advance has the lock, so two "+1 day" calls make two days.
    return this.serialized(() => this.advanceTo(() => new Date(this.clock.now().getTime() + ms)));
  }

  private async advanceTo(targetOf: () => Date): Promise<AdvanceResult> {
    // The local worker must neither run a job with the clock pinned for another, nor run a
    // later job before an earlier one: pause() waits for the jobs it is running.
    await this.worker?.pause();
    // Under the worker's id (so under this instance's prefix): a restart takes back the jobs of
    // an advance that was killed as it takes back the worker's (JobQueue.releaseAbandoned).
    const workerId = this.worker ? `${this.worker.workerId}:clock:${randomUUID().slice(0, 8)}` : `sandbox-clock:${randomUUID()}`;
    // The advance's own heartbeat: a batch can hold 200 jobs for longer than one lease.
    const keeper = new LeaseKeeper(this.runner.queue, workerId, this.leaseMs, this.runner.logger);
    const claim = async (limit: number, dueBy: Date, kinds?: string[]) => {
      const jobs = await this.runner.queue.claim(workerId, { limit, dueBy, leaseMs: this.leaseMs, kinds });
      for (const job of jobs) keeper.hold(job);
      return jobs;
    };
    const flight = new BatchesInFlight();
    let jobsRun = 0;
    let reached: Date;
    try {
      await this.load();
      const requested = targetOf();
      const target = requested.getTime() > this.clock.now().getTime() ? requested : this.clock.now();
      for (;;) {
        if (jobsRun >= this.maxJobs) {
          throw new Error(`sandbox advance stopped after ${this.maxJobs} jobs; the jobs still due stay pending`);
        }
        // The earliest due job fixes the instant; the other jobs due at that same instant come
        // with it as one batch (a billing run: thousands at once). Nothing is due earlier, and
        // whatever these jobs enqueue for this instant or before is claimed by the next round,
        // so a job a handler enqueues for earlier than the next queued job still runs before it.
        await this.beforeRound?.(target);
        const [first] = await claim(1, target);
        if (!first) {
          if (flight.empty) break;
          // What the batches still running enqueue may fall due before the target.
          await flight.drain();
          continue;
        }
        const batch = this.runner.handlers.batchOf(first.kind);
        if (batch) {
          const until = new Date(Math.min(first.runAt.getTime() + BATCH_WINDOW_MS, target.getTime()));
          jobsRun += await this.startBatches(first, batch, flight, (limit) => claim(Math.min(limit, this.maxJobs - jobsRun - 1), until, [first.kind]), workerId, keeper);
          continue;
        }
        // Any other job waits for the batches still running: it may read what they write.
        await flight.drain();
        // The pin only moves forward (it is max(run_at, now)) and stays between jobs, so anyone
        // reading the clock meanwhile never sees time go back.
        this.clock.pin(first.runAt);
        const room = Math.min(BATCH, this.maxJobs - jobsRun) - 1;
        const rest = room > 0 ? await claim(room, first.runAt) : [];
        jobsRun += await this.runBatch([first, ...rest], workerId, keeper);
      }
      this.clock.moveTo(target);
      // Answer the target itself: the wall clock ticked a little while we got here.
      reached = target;
    } finally {
      // No job of this advance runs on after it.
      await flight.drain().catch(() => undefined);
      // Jobs still held after a failure keep their last lease and are retaken when it ends.
      await keeper.stop();
      // On failure too: keep at least the time the last job ran at, so time never goes back.
      this.clock.moveTo(this.clock.now());
      this.clock.unpin();
      await this.persistOffset();
      this.worker?.resume();
    }
    return { now: reached, jobsRun };
  }

  /**
   * A batch kind's jobs due within BATCH_WINDOW_MS of `first` (JobHandlers.registerBatch: a
   * billing run), started in batches of its size, up to its concurrency in flight. The advance
   * does not wait for them: it goes on to later jobs while they wait on the acquirer, as the
   * worker would, so a day's billings are charged side by side. The clock stands at the latest
   * one's due time for these batches (VirtualClock.runAt) while the pin moves on for the later
   * jobs. Answers how many jobs were started.
   */
  private async startBatches(first: ClaimedJob, batch: BatchOptions, flight: BatchesInFlight, more: (limit: number) => Promise<ClaimedJob[]>, workerId: string, keeper: LeaseKeeper): Promise<number> {
    await flight.roomFor(first.kind, batch.concurrency);
    const free = batch.concurrency - flight.busy(first.kind);
    const jobs = [first, ...(free > 1 ? await more(free - 1) : [])];
    this.clock.pin(new Date(Math.max(...jobs.map((job) => job.runAt.getTime()))));
    const at = this.clock.now();
    for (let i = 0; i < jobs.length; i += batch.size) {
      const chunk = jobs.slice(i, i + batch.size);
      const run = this.clock.runAt(at, () => runJobBatch(this.runner, chunk, workerId));
      flight.add(first.kind, chunk.length, run.finally(() => chunk.forEach((job) => keeper.release(job))));
    }
    return jobs.length;
  }

  /**
   * Runs one instant's jobs in id order. A stretch of jobs whose kinds are `parallel` (each
   * independent of the others, like two webhook deliveries) or batch kinds runs `parallel` at a
   * time (a batch kind's jobs in batches of its size), as the production worker would run them;
   * every other job runs alone, in turn.
   */
  private async runBatch(batch: ClaimedJob[], workerId: string, keeper: LeaseKeeper): Promise<number> {
    const handlers = this.runner.handlers;
    const together = (job: ClaimedJob) => handlers.isParallel(job.kind) || handlers.batchOf(job.kind) !== undefined;
    for (let i = 0; i < batch.length; ) {
      let end = i + 1;
      if (together(batch[i])) while (end < batch.length && together(batch[end])) end++;
      const tasks = tasksOf(batch.slice(i, end), handlers);
      let next = 0;
      const lane = async () => {
        while (next < tasks.length) {
          const task = tasks[next++];
          if (task.length > 1 || handlers.batchOf(task[0].kind)) await runJobBatch(this.runner, task, workerId);
          else await runJob(this.runner, task[0], workerId);
          for (const job of task) keeper.release(job);
        }
      };
      await Promise.all(Array.from({ length: Math.min(this.parallel, tasks.length) }, lane));
      i = end;
    }
    return batch.length;
  }

  private async persistOffset(): Promise<void> {
    const value = String(this.clock.offset);
    await this.database.db
      .insertInto('settings')
      .values({ key: CLOCK_OFFSET_SETTING, value })
      .onConflict((oc) =>
        oc
          .column('key')
          .doUpdateSet({ value: (eb) => eb.ref('excluded.value') })
          // Only grow: another instance may have advanced further meanwhile.
          .where(sql<boolean>`cast(settings.value as bigint) < cast(excluded.value as bigint)`),
      )
      .execute();
  }

  private serialized<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
