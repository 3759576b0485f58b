/** First retry after 10 s, then doubling: 10 s, 20 s, 40 s, ... */
export const BASE_RETRY_DELAY_MS = 10_000;
/** A job that keeps failing is still retried hourly rather than ever more rarely. */
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
/** Up to 10% earlier, so jobs that failed together (an acquirer outage) do not all retry in the same instant. */
const JITTER = 0.1;

/**
 * Delay before the next try after failed attempt number `attempt` (1 = the first run failed).
 * Pure: `random` is injectable so tests can pin the jitter; it returns a value in [0, 1).
 * The jitter only shortens the delay, so the result never exceeds the cap.
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const n = Math.max(1, Math.floor(attempt));
  // Clamp the exponent before Math.pow so a large attempt count cannot overflow to Infinity.
  const exponential = BASE_RETRY_DELAY_MS * 2 ** Math.min(n - 1, 30);
  const capped = Math.min(exponential, MAX_RETRY_DELAY_MS);
  return Math.round(capped * (1 - JITTER * random()));
}
