/** Exponential backoff with a cap and a downward jitter. */
export interface BackoffPolicy {
  /** Delay after the first failure. */
  baseMs: number;
  /** The delay stops doubling here. */
  maxMs: number;
  /** Fraction by which a delay may come out shorter (0.1 = up to 10% earlier). */
  jitter: number;
}

/** Job retries: first after 10 s, then doubling, hourly at most, up to 10% earlier. */
export const JOB_RETRY_POLICY: BackoffPolicy = { baseMs: 10_000, maxMs: 60 * 60 * 1000, jitter: 0.1 };
export const BASE_RETRY_DELAY_MS = JOB_RETRY_POLICY.baseMs;
/** A job that keeps failing is still retried hourly rather than ever more rarely. */
export const MAX_RETRY_DELAY_MS = JOB_RETRY_POLICY.maxMs;

/**
 * Delay before the next try after failed attempt number `attempt` (1 = the first run failed).
 * Pure: `random` is injectable so tests can pin the jitter; it returns a value in [0, 1).
 * The jitter only shortens the delay (so work that failed together, an acquirer or receiver
 * outage, does not all come back in the same instant), and the result never exceeds the cap.
 */
export function backoffDelayMs(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  const n = Math.max(1, Math.floor(attempt));
  // Clamp the exponent before Math.pow so a large attempt count cannot overflow to Infinity.
  const exponential = policy.baseMs * 2 ** Math.min(n - 1, 30);
  const capped = Math.min(exponential, policy.maxMs);
  return Math.round(capped * (1 - policy.jitter * random()));
}

export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  return backoffDelayMs(JOB_RETRY_POLICY, attempt, random);
}
