import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock } from '../clock.js';
import { LeaseKeeper } from './lease-keeper.js';
import { DEFAULT_LEASE_MS, errorMessage, type ClaimedJob, type JobQueue } from './queue.js';
import type { BatchOptions, JobHandlers } from './registry.js';
import { runJob, runJobBatch, silentLogger, type JobLogger, type JobRunner } from './run-job.js';

export interface WorkerOptions {
  /** Pause between polls when the queue had nothing (more) to give. */
  pollMs: number;
  /** Jobs run at the same time; default 4. */
  concurrency?: number;
  /**
   * Names this instance across restarts (INSTANCE_ID; `[A-Za-z0-9._:-]`, no `/`). Worker ids are
   * `${instanceId}/${pid}-${random8}`, and start() first takes back the running jobs this
   * instance's previous process left (JobQueue.releaseAbandoned). Without it (tests that run
   * several workers side by side on one database) start() takes nothing back, and a dead
   * worker's jobs wait for their lease.
   */
  instanceId?: string;
  /** Must be unique per process: fencing tells claims apart by it. Default from instanceId (above). */
  workerId?: string;
  /** The claim's lease (JOB_LEASE_MS), renewed every third of it while the job runs; default DEFAULT_LEASE_MS. */
  leaseMs?: number;
  /** Only these kinds (default all: a kind with no handler then fails visibly instead of waiting unseen). */
  kinds?: string[];
  logger?: JobLogger;
}

/**
 * Polls the queue and runs claimed jobs, at most `concurrency` at a time. A batch kind
 * (JobHandlers.registerBatch) also has a lane of its own: its jobs claimed by kind, up to its
 * `concurrency` in flight, in batches of up to its `size`.
 */
export class Worker {
  readonly workerId: string;
  readonly leaseMs: number;
  /** Renews the leases of the jobs in flight (the heartbeat). */
  private readonly keeper: LeaseKeeper;
  /** Until the first poll after start() has released what this instance's previous process held. */
  private takeoverDue = false;
  private readonly runner: JobRunner;
  private readonly concurrency: number;
  private readonly inFlight = new Set<Promise<void>>();
  /** Jobs running in the general slots (a batch counts each of its jobs). */
  private busy = 0;
  /** Jobs running in each batch kind's lane. */
  private readonly laneBusy = new Map<string, number>();
  /** Batch kinds whose last lane claim came back full: more are probably due. */
  private readonly laneBacklog = new Set<string>();
  private started = false;
  private paused = false;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  /** The last poll filled every slot, so more jobs are probably due: poll again as soon as a slot frees. */
  private backlog = false;
  /** Free slots worth a claim of their own at once; fewer wait a moment for company. */
  private readonly refillAt: number;
  /** The pending timer is a refill's (short), not an idle poll's: later completions join it. */
  private refillScheduled = false;

  constructor(
    private readonly queue: JobQueue,
    handlers: JobHandlers,
    clock: Clock,
    private readonly options: WorkerOptions,
  ) {
    this.concurrency = options.concurrency ?? 4;
    this.refillAt = Math.max(1, Math.floor(this.concurrency / 4));
    this.workerId = options.workerId ?? `${options.instanceId ?? hostname()}/${process.pid}-${randomUUID().slice(0, 8)}`;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.runner = { queue, handlers, clock, logger: options.logger ?? silentLogger };
    this.keeper = new LeaseKeeper(queue, this.workerId, this.leaseMs, this.runner.logger);
    // Once per process, at the first poll: a restart takes back at once what the killed process held.
    this.takeoverDue = options.instanceId !== undefined;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(0);
  }

  /** Graceful shutdown: no new claims, then waits for the jobs already running. */
  async stop(): Promise<void> {
    this.started = false;
    this.clearTimer();
    await this.polling;
    await this.drain();
    await this.keeper.stop();
  }

  /** Stops claiming; resolves once the jobs already running have finished (so none overlaps what the caller does next). */
  async pause(): Promise<void> {
    this.paused = true;
    this.clearTimer();
    await this.polling;
    await this.drain();
    await this.keeper.stop();
  }

  resume(): void {
    this.paused = false;
    if (this.started) this.schedule(0);
  }

  /** Claims one batch (up to the free slots) due by `dueBy` and runs it to the end; returns how many ran. */
  async runOnce(dueBy?: Date): Promise<number> {
    const jobs = await this.claim(dueBy);
    await Promise.all(this.launchAll(jobs));
    return jobs.length;
  }

  private async claim(dueBy?: Date): Promise<ClaimedJob[]> {
    const free = this.concurrency - this.busy;
    const jobs = await this.queue.claim(this.workerId, {
      limit: free,
      dueBy,
      leaseMs: this.leaseMs,
      kinds: this.options.kinds,
    });
    this.backlog = free > 0 && jobs.length === free;
    return jobs;
  }

  /**
   * Runs claimed jobs: each batch kind's in batches of up to its size, the others one by one.
   * `lane` names the batch kind whose lane claimed them; else they fill the general slots.
   */
  private launchAll(jobs: ClaimedJob[], lane?: string): Promise<void>[] {
    const batches = new Map<string, ClaimedJob[]>();
    const launched: Promise<void>[] = [];
    for (const job of jobs) {
      const batch = this.runner.handlers.batchOf(job.kind);
      if (!batch) launched.push(this.launch([job], lane));
      else {
        const pending = [...(batches.get(job.kind) ?? []), job];
        batches.set(job.kind, pending);
        if (pending.length >= batch.size) {
          launched.push(this.launch(pending, lane));
          batches.delete(job.kind);
        }
      }
    }
    for (const pending of batches.values()) launched.push(this.launch(pending, lane));
    return launched;
  }

  private launch(jobs: ClaimedJob[], lane: string | undefined): Promise<void> {
    for (const job of jobs) this.keeper.hold(job);
    this.count(lane, jobs.length);
    const run = this.runner.handlers.batchOf(jobs[0].kind) ? runJobBatch(this.runner, jobs, this.workerId) : runJob(this.runner, jobs[0], this.workerId);
    const running = run
      .then(() => undefined)
      // Only a database error gets here (handler errors are recorded by runJob); the lease will
      // expire and another poll retakes the job.
      .catch((error) => this.runner.logger.error({ jobIds: jobs.map((job) => job.id), error: errorMessage(error) }, 'job outcome not recorded'))
      .finally(() => {
        for (const job of jobs) this.keeper.release(job);
        this.count(lane, -jobs.length);
        this.inFlight.delete(running);
        this.refill();
      });
    this.inFlight.add(running);
    return running;
  }

  private count(lane: string | undefined, jobs: number): void {
    if (lane === undefined) this.busy += jobs;
    else this.laneBusy.set(lane, (this.laneBusy.get(lane) ?? 0) + jobs);
  }

  /** The batch kinds this worker runs, each with the free room of its lane worth a claim (a batch's worth). */
  private lanesWithRoom(): { kind: string; free: number }[] {
    const lanes: { kind: string; free: number }[] = [];
    for (const kind of this.runner.handlers.batchKinds()) {
      if (this.options.kinds && !this.options.kinds.includes(kind)) continue;
      const { size, concurrency } = this.runner.handlers.batchOf(kind) as BatchOptions;
      const free = concurrency - (this.laneBusy.get(kind) ?? 0);
      if (free >= Math.min(size, concurrency)) lanes.push({ kind, free });
    }
    return lanes;
  }

  /**
   * With a backlog, a finished job makes room for the next. Claiming for every single free slot
   * would cost one claim (a commit) per job; completions are gathered instead: a claim at once
   * when a quarter of the slots (or a lane's batch) are free, otherwise within 2 ms for whatever
   * has freed by then.
   */
  private refill(): void {
    if (this.polling || this.refillScheduled) return;
    const lanes = this.lanesWithRoom().some((lane) => this.laneBacklog.has(lane.kind));
    if (!this.backlog && !lanes) return;
    // Replaces an idle poll's timer: the batch that just ended left the backlog behind it.
    this.schedule(lanes || this.concurrency - this.busy >= this.refillAt ? 0 : 2);
    this.refillScheduled = this.timer !== undefined;
  }

  private schedule(delayMs: number): void {
    // One timer and one poll at a time; a poll in progress reschedules itself when done.
    if (!this.started || this.paused || this.polling) return;
    this.clearTimer();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.refillScheduled = false;
      this.polling = this.poll().finally(() => {
        this.polling = undefined;
        // A full batch: come back as soon as a slot frees (launch's finally) rather than after pollMs.
        const more = (this.backlog && this.busy < this.concurrency) || this.lanesWithRoom().some((lane) => this.laneBacklog.has(lane.kind));
        this.schedule(more ? 0 : this.options.pollMs);
      });
    }, delayMs);
  }

  private async poll(): Promise<void> {
    try {
      // Before the first claim; on failure (the database is down) the next poll tries again.
      if (this.takeoverDue) await this.takeOver();
      // Each batch kind's lane claims its own kind, so a billing run is not held to the slots
      // that webhook deliveries and the rest share.
      for (const { kind, free } of this.lanesWithRoom()) {
        const jobs = await this.queue.claim(this.workerId, { limit: free, leaseMs: this.leaseMs, kinds: [kind] });
        if (jobs.length === free) this.laneBacklog.add(kind);
        else this.laneBacklog.delete(kind);
        this.launchAll(jobs, kind);
      }
      // Every kind in time order in the general slots (a batch kind's jobs among them run there).
      if (this.busy < this.concurrency) this.launchAll(await this.claim());
    } catch (error) {
      this.backlog = false;
      this.laneBacklog.clear();
      this.runner.logger.error({ workerId: this.workerId, error: errorMessage(error) }, 'job claim failed');
    }
  }

  private async takeOver(): Promise<void> {
    const released = await this.runner.queue.releaseAbandoned({ instanceId: this.options.instanceId!, workerId: this.workerId });
    this.takeoverDue = false;
    if (released > 0) {
      this.runner.logger.warn({ workerId: this.workerId, jobs: released }, 'took back the running jobs of this instance\'s previous process');
    }
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.refillScheduled = false;
  }

  private async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}
