import { describe, expect, it } from 'vitest';
import { MAX_RETRY_DELAY_MS, retryDelayMs } from '../../src/jobs/backoff.js';

const noJitter = () => 0;

describe('retryDelayMs', () => {
  it('starts at 10 s and doubles per failed attempt', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, noJitter))).toEqual([10_000, 20_000, 40_000, 80_000, 160_000]);
  });

  it('caps at one hour, also for absurd attempt counts', () => {
    expect(retryDelayMs(9, noJitter)).toBe(2_560_000);
    expect(retryDelayMs(10, noJitter)).toBe(MAX_RETRY_DELAY_MS);
    expect(retryDelayMs(10_000, noJitter)).toBe(3_600_000);
  });

  it('treats attempt 0 or less as the first failure', () => {
    expect(retryDelayMs(0, noJitter)).toBe(10_000);
    expect(retryDelayMs(-3, noJitter)).toBe(10_000);
  });

  it('jitters by at most 10% downwards, never past the cap', () => {
    expect(retryDelayMs(1, () => 0.5)).toBe(9_500);
    expect(retryDelayMs(1, () => 0.999999)).toBe(9_000);
    for (let i = 0; i < 1000; i++) {
      const d = retryDelayMs(20);
      expect(d).toBeGreaterThan(0.9 * MAX_RETRY_DELAY_MS - 1);
      expect(d).toBeLessThanOrEqual(MAX_RETRY_DELAY_MS);
    }
  });
});
