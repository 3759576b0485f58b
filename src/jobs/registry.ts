import type { Clock } from '../clock.js';
import type { ClaimedJob, MaxAttemptsSource } from './queue.js';

export interface JobRunContext {
  job: ClaimedJob;
  /** Business time: in a sandbox advance it stands at the job's due time. */
  clock: Clock;
}

// Payloads are JSON written by our own enqueue calls; each handler knows its own shape.
export type JobHandler = (payload: any, ctx: JobRunContext) => Promise<void>;

/** One job's result in a batch: undefined when it is done, a RetryLater to run it again then, any other error a failed attempt. */
export type JobResult = Error | undefined;

export interface BatchRunContext {
  /** The jobs, in the order of the payloads. */
  jobs: ClaimedJob[];
  clock: Clock;
}

/** Runs several jobs of one kind at once; answers one result per payload, in their order. */
export type BatchJobHandler = (payloads: any[], ctx: BatchRunContext) => Promise<JobResult[]>;

/**
 * A kind whose jobs are worth running together (a billing run: one claim, one statement for
 * many rows, the acquirer called for all at once). Its jobs run in batches of up to `size`, at
 * most `concurrency` of them at once per claimer, on a budget of their own beside the
 * worker's WORKER_CONCURRENCY slots.
 */
export interface BatchOptions {
  handler: BatchJobHandler;
  size: number;
  concurrency: number;
}

export interface RegisteredHandler {
  handler: JobHandler;
  maxAttempts?: number;
  batch?: BatchOptions;
  /**
   * Jobs of this kind due at the same instant are independent of each other (one billing's
   * charge and another's), so the sandbox advance may run them side by side, as the worker
   * does in production. Kinds without it keep running one at a time, in id order.
   */
  parallel?: boolean;
}

export interface JobOptions {
  maxAttempts?: number;
  /** See RegisteredHandler.parallel. */
  parallel?: boolean;
}

/**
 * One job kind a module runs: what its `jobs()` answers (the bank slips', the payments', the
 * maintenance purge...). src/root/context.ts hands every module's list to `registerAll` the same way.
 */
export type JobDefinition = JobOptions & { kind: string } & ({ handler: JobHandler; batch?: undefined } | { batch: BatchOptions; handler?: undefined });

/**
 * Thrown by a handler to run the job again at `at` without counting a failure (for example
 * "the bank slip is not due yet"): the attempt is given back and no error is recorded.
 */
export class RetryLater extends Error {
  constructor(readonly at: Date, message = `retry at ${at.toISOString()}`) {
    super(message);
    this.name = 'RetryLater';
  }
}

/** One handler per job kind; the worker and the sandbox clock's advance both run through it. */
export class JobHandlers implements MaxAttemptsSource {
  private readonly handlers = new Map<string, RegisteredHandler>();

  register(kind: string, handler: JobHandler, options: JobOptions = {}): this {
    // A second handler for a kind is a wiring mistake; silently replacing one would hide it.
    if (this.handlers.has(kind)) throw new Error(`a handler for job kind "${kind}" is already registered`);
    if (options.maxAttempts !== undefined && !(Number.isInteger(options.maxAttempts) && options.maxAttempts >= 1)) {
      throw new Error(`maxAttempts for job kind "${kind}" must be a positive integer`);
    }
    this.handlers.set(kind, { handler, maxAttempts: options.maxAttempts, parallel: options.parallel });
    return this;
  }

  /**
   * A batch kind (BatchOptions). Its single-job handler is the batch handler given one job, so
   * whoever runs one job of the kind (runJob) runs the same code.
   */
  registerBatch(kind: string, batch: BatchOptions, options: Pick<JobOptions, 'maxAttempts'> = {}): this {
    if (!(batch.size >= 1 && batch.concurrency >= 1)) throw new Error(`batch size and concurrency of job kind "${kind}" must be at least 1`);
    const one: JobHandler = async (payload, ctx) => {
      const [result] = await batch.handler([payload], { jobs: [ctx.job], clock: ctx.clock });
      if (result) throw result;
    };
    this.register(kind, one, options);
    this.handlers.get(kind)!.batch = batch;
    return this;
  }

  /** A module's kinds (its `jobs()`), each registered as `register` or `registerBatch` would. */
  registerAll(definitions: readonly JobDefinition[]): this {
    for (const definition of definitions) {
      const { kind, maxAttempts, parallel } = definition;
      if (definition.batch) this.registerBatch(kind, definition.batch, { maxAttempts });
      else this.register(kind, definition.handler, { maxAttempts, parallel });
    }
    return this;
  }

  batchOf(kind: string): BatchOptions | undefined {
    return this.handlers.get(kind)?.batch;
  }

  /** The kinds registered with registerBatch. */
  batchKinds(): string[] {
    return [...this.handlers].filter(([, h]) => h.batch).map(([kind]) => kind);
  }

  get(kind: string): RegisteredHandler | undefined {
    return this.handlers.get(kind);
  }

  kinds(): string[] {
    return [...this.handlers.keys()];
  }

  isParallel(kind: string): boolean {
    return this.handlers.get(kind)?.parallel === true;
  }

  maxAttemptsFor(kind: string): number | undefined {
    return this.handlers.get(kind)?.maxAttempts;
  }
}
