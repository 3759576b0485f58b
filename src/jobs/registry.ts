import type { Clock } from '../clock.js';
import type { ClaimedJob, MaxAttemptsSource } from './queue.js';

export interface JobRunContext {
  job: ClaimedJob;
  /** Business time: in a sandbox advance it stands at the job's due time. */
  clock: Clock;
}

// Payloads are JSON written by our own enqueue calls; each handler knows its own shape.
export type JobHandler = (payload: any, ctx: JobRunContext) => Promise<void>;

export interface RegisteredHandler {
  handler: JobHandler;
  maxAttempts?: number;
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
 * maintenance purge...). src/context.ts hands every module's list to `registerAll` the same way.
 */
export interface JobDefinition extends JobOptions {
  kind: string;
  handler: JobHandler;
}

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

  /** A module's kinds (its `jobs()`), each registered as `register` would. */
  registerAll(definitions: readonly JobDefinition[]): this {
    for (const { kind, handler, ...options } of definitions) this.register(kind, handler, options);
    return this;
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
