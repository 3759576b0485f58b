import { describe, expect, it } from 'vitest';
import { MAX_RETRY_ATTEMPTS, nextRetryDate, retryDates, retryOffsetDays } from '../../src/domain/retry-schedule.js';

describe('retry schedule', () => {
  it('follows the seed example: due 01/01 -> 03/01, 05/01, 09/01, 17/01', () => {
    expect(nextRetryDate('2026-01-01', 1, 4)).toBe('2026-01-03');
    expect(nextRetryDate('2026-01-01', 2, 4)).toBe('2026-01-05');
    expect(nextRetryDate('2026-01-01', 3, 4)).toBe('2026-01-09');
    expect(nextRetryDate('2026-01-01', 4, 4)).toBe('2026-01-17');
    expect(nextRetryDate('2026-01-01', 5, 4)).toBeNull();
    expect(retryDates('2026-01-01', 4)).toEqual(['2026-01-03', '2026-01-05', '2026-01-09', '2026-01-17']);
  });

  it('stops after `attempts` retries', () => {
    expect(nextRetryDate('2026-01-01', 1, 0)).toBeNull();
    expect(nextRetryDate('2026-01-01', 1, 1)).toBe('2026-01-03');
    expect(nextRetryDate('2026-01-01', 2, 1)).toBeNull();
    expect(retryDates('2026-01-01', 0)).toEqual([]);
    expect(retryDates('2026-01-30', 2)).toEqual(['2026-02-01', '2026-02-03']);
    expect(retryDates('2025-12-20', 4)).toEqual(['2025-12-22', '2025-12-24', '2025-12-28', '2026-01-05']);
  });

  it('keeps the time of day for an instant', () => {
    const due = new Date('2026-01-01T10:30:00.000Z');
    expect(nextRetryDate(due, 1, 4)?.toISOString()).toBe('2026-01-03T10:30:00.000Z');
    expect(nextRetryDate(due, 4, 4)?.toISOString()).toBe('2026-01-17T10:30:00.000Z');
    expect(nextRetryDate(due, 3, 2)).toBeNull();
  });

  it('offsets are powers of two and the last retry is inside a 20-day interval', () => {
    expect([1, 2, 3, 4].map(retryOffsetDays)).toEqual([2, 4, 8, 16]);
    expect(retryOffsetDays(MAX_RETRY_ATTEMPTS)).toBeLessThan(20);
  });

  it('rejects out-of-range arguments', () => {
    expect(() => nextRetryDate('2026-01-01', 1, 5)).toThrow(RangeError);
    expect(() => nextRetryDate('2026-01-01', 1, -1)).toThrow(RangeError);
    expect(() => nextRetryDate('2026-01-01', 0, 4)).toThrow(RangeError);
    expect(() => retryOffsetDays(0)).toThrow(RangeError);
    expect(() => retryOffsetDays(5)).toThrow(RangeError);
  });
});
