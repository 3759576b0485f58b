import { describe, expect, it } from 'vitest';
import { NsuSequence } from '../../src/acquirer/sandbox/nsu.js';

/** A wall clock the test moves, and random draws it chooses. */
function sequence(ms: number[], draws: number[]) {
  const clock = { at: ms[0], wallNow: () => new Date(clock.at) };
  let i = 0;
  return { clock, nsus: new NsuSequence(clock, () => draws[i++ % draws.length]) };
}

describe('the sandbox NSU sequence', () => {
  it('is the wall clock milliseconds then 12 random digits, 25 digits in all', () => {
    const { nsus } = sequence([1_780_000_000_123], [42]);
    expect(nsus.next()).toBe('1780000000123000000000042');
  });

  it('strictly increases within one millisecond whatever the draws', () => {
    const { nsus } = sequence([1_780_000_000_123], [500, 7, 500, 999_999_999_999, 0]);
    const issued = Array.from({ length: 6 }, () => nsus.next());
    expect(issued).toEqual([
      '1780000000123000000000500',
      '1780000000123000000000501',
      '1780000000123000000000502',
      '1780000000123999999999999',
      // The last draw of the millisecond is taken: the next NSU moves to the next one.
      '1780000000124000000000000',
      '1780000000124000000000001',
    ]);
  });

  it('does not go back when the wall clock is stepped back', () => {
    const { clock, nsus } = sequence([1_780_000_000_500], [10, 3]);
    const first = nsus.next();
    clock.at -= 60_000;
    const second = nsus.next();
    expect(second > first).toBe(true);
    expect(second).toBe('1780000000500000000000011');
    clock.at += 120_000;
    expect(nsus.next()).toBe('1780000060500000000000010');
  });

  it('orders as its digits do (fixed width), over many draws and real time', () => {
    const nsus = new NsuSequence({ wallNow: () => new Date() });
    const issued = Array.from({ length: 5_000 }, () => nsus.next());
    expect(issued.every((n) => /^\d{25}$/.test(n))).toBe(true);
    expect([...issued].sort()).toEqual(issued);
    expect(new Set(issued).size).toBe(issued.length);
  });
});
