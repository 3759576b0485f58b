import { errorMessage } from './queue.js';
import type { JobLogger } from './run-job.js';

export interface SweepLoopOptions {
  /** Named in the log line of a failed pass. */
  name: string;
  /** Pause between passes that found nothing more to do. */
  intervalMs: number;
  /** After `poke`: the pass comes this soon, gathering whatever else is poked meanwhile. */
  pokeMs: number;
  logger: JobLogger;
}

/**
 * A background pass over rows a module has not handled yet (the payments relay, the recovery
 * of Pending payments): one pass at a time in this process, again at once while a pass says more
 * is waiting, otherwise every `intervalMs`, or `pokeMs` after a writer says it left work. Several
 * instances may run the same loop: each pass claims its rows (SKIP LOCKED, compare-and-set), so
 * the loop only decides when to look.
 */
export class SweepLoop {
  private timer: NodeJS.Timeout | undefined;
  private dueAt = Infinity;
  private started = false;
  private current: Promise<void> = Promise.resolve();

  /** `pass` answers true when it may have left work behind (a full batch). */
  constructor(
    private readonly pass: () => Promise<boolean>,
    private readonly options: SweepLoopOptions,
  ) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.current;
  }

  /** A writer left work: the next pass comes within `pokeMs`. */
  poke(): void {
    if (this.started) this.schedule(this.options.pokeMs);
  }

  /** Runs passes until none is left with work (the sandbox clock, tests); errors are thrown. */
  drain(): Promise<void> {
    const run = this.current.then(async () => {
      while (await this.pass());
    });
    this.current = run.catch(() => {});
    return run;
  }

  private schedule(delayMs: number): void {
    const at = performance.now() + delayMs;
    if (this.timer !== undefined && this.dueAt <= at) return;
    clearTimeout(this.timer);
    this.dueAt = at;
    this.timer = setTimeout(() => this.tick(), delayMs);
  }

  private tick(): void {
    this.timer = undefined;
    this.dueAt = Infinity;
    let more = false;
    let failed = false;
    const run = this.current.then(async () => {
      try {
        more = await this.pass();
      } catch (error) {
        failed = true;
        this.options.logger.warn({ loop: this.options.name, error: errorMessage(error) }, 'background pass failed: retried');
      }
    });
    this.current = run;
    void run.then(() => {
      if (this.started) this.schedule(more && !failed ? 0 : this.options.intervalMs);
    });
  }
}
