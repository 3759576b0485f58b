import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The only place that reads the machine's time.
 *
 * `now()` is business time: every timestamp and date the APIs show and every scheduled job.
 * `wallNow()` is the real time, for security timers (token expiry, lockouts, idempotency
 * retention, job leases), which must not move when a sandbox user advances the clock.
 */
export interface Clock {
  now(): Date;
  wallNow(): Date;
  readonly virtual: boolean;
}

export function wallClockNow(): Date {
  return new Date(Date.now());
}

export class SystemClock implements Clock {
  readonly virtual = false;
  now(): Date {
    return wallClockNow();
  }
  wallNow(): Date {
    return wallClockNow();
  }
}

/**
 * Sandbox clock: wall clock plus an offset that only grows (contract section 12).
 * While the sandbox advance runs a job, the clock is pinned at that job's due time so that
 * what the job records carries that time.
 */
export class VirtualClock implements Clock {
  readonly virtual = true;
  private pinned: Date | undefined;
  /** The time of the work `runAt` started, for everything that work awaits. */
  private readonly own = new AsyncLocalStorage<number>();

  constructor(private offsetMs = 0) {}

  now(): Date {
    const own = this.own.getStore();
    if (own !== undefined) return new Date(own);
    return this.pinned ? new Date(this.pinned.getTime()) : new Date(Date.now() + this.offsetMs);
  }

  /**
   * Runs `work` with business time standing at `at` for it alone, whatever the pin does
   * meanwhile: a sandbox advance goes on to later jobs while a batch started at its own due time
   * waits on the acquirer, and the batch still records that time, as it would had it run alone.
   */
  runAt<T>(at: Date, work: () => Promise<T>): Promise<T> {
    return this.own.run(at.getTime(), work);
  }

  wallNow(): Date {
    return wallClockNow();
  }

  get offset(): number {
    return this.offsetMs;
  }

  /** Adopts an offset read from the database (another instance may have advanced it). */
  syncOffset(offsetMs: number): void {
    if (offsetMs > this.offsetMs) this.offsetMs = offsetMs;
  }

  /** Holds business time at `at` (never earlier than it already is) until `unpin`. */
  pin(at: Date): void {
    const current = this.now();
    this.pinned = at.getTime() > current.getTime() ? at : current;
  }

  unpin(): void {
    this.pinned = undefined;
  }

  /**
   * The sandbox reset: back to `offsetMs` (0 = real time). The only way time goes back, taken
   * only with the business data created on the way removed (src/modules/sandbox/reset-service.ts).
   */
  resetTo(offsetMs: number): void {
    this.offsetMs = offsetMs;
    this.pinned = undefined;
  }

  /** Moves business time forward to `to`; a target in the past leaves the clock where it is. */
  moveTo(to: Date): void {
    const offset = to.getTime() - Date.now();
    if (offset > this.offsetMs) this.offsetMs = offset;
  }
}
