import { describe, expect, it } from 'vitest';
import { timeOrderedUuid } from '../src/ids.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('time-ordered ids (UUID version 7)', () => {
  it('has the version 7 and RFC 9562 variant bits, and the time in its first 48 bits', () => {
    const at = new Date('2026-11-26T04:30:29.842Z');
    const id = timeOrderedUuid(at);
    expect(id).toMatch(V7);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at.getTime());
  });

  it('sorts as text in time order across milliseconds, so an index keyed by it grows at its end', () => {
    const start = Date.UTC(2026, 10, 26);
    const ids = Array.from({ length: 1000 }, (_, i) => timeOrderedUuid(new Date(start + i * 37)));
    expect([...ids].sort()).toEqual(ids);
  });

  it('keeps 74 random bits: ids of one millisecond differ', () => {
    const at = new Date();
    const ids = new Set(Array.from({ length: 10000 }, () => timeOrderedUuid(at)));
    expect(ids.size).toBe(10000);
    const tails = new Set([...ids].map((id) => id.slice(14)));
    expect(tails.size).toBe(10000);
  });
});
