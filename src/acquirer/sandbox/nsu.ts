import { randomInt } from 'node:crypto';
import type { Clock } from '../../clock.js';

const RANDOM_DIGITS = 12;
const RANDOM_RANGE = 10 ** RANDOM_DIGITS;

/**
 * The sandbox acquirer's NSU, "unique transaction sequential number" (integration API): the
 * wall clock's milliseconds (13 digits) then 12 random digits, 25 digits in all, strictly
 * increasing within a process (a number already issued, or a clock stepped back, takes the
 * last one plus 1).
 *
 * Why sequential: the payment's unique NSU index and the receivables' (account, nsu) index then
 * take each new entry at their right-hand edge, as the time-ordered ids do (src/ids.ts). With a
 * random NSU each payment dirtied a leaf page of both indexes, and a commit writes every dirtied
 * page whole to the WAL.
 *
 * Why unique: within a process by construction; across instances two NSUs can only meet in the
 * same millisecond with the same 12 random digits (1 in 10^12 a pair). The 18 random digits it
 * replaces could meet any NSU ever issued: about even odds of one collision in a billion
 * payments, against once in years of 4,000 payments a second here. A collision would fail its
 * payment's transaction on the unique index, charging nothing.
 */
export class NsuSequence {
  private lastMs = 0;
  private lastRandom = -1;

  constructor(
    private readonly clock: Pick<Clock, 'wallNow'>,
    private readonly random: () => number = () => randomInt(0, RANDOM_RANGE),
  ) {}

  next(): string {
    let ms = this.clock.wallNow().getTime();
    let random = this.random();
    if (ms < this.lastMs || (ms === this.lastMs && random <= this.lastRandom)) {
      ms = this.lastMs;
      random = this.lastRandom + 1;
      if (random === RANDOM_RANGE) {
        ms += 1;
        random = 0;
      }
    }
    this.lastMs = ms;
    this.lastRandom = random;
    return `${String(ms).padStart(13, '0')}${String(random).padStart(RANDOM_DIGITS, '0')}`;
  }
}
