import { ApiError } from './errors.js';

/**
 * Per-merchant slots for the large streamed answers: the conciliation range searches
 * and the bank slip listings, which can each stream ~100,000 records. Memory per answer is flat,
 * but each holds a database reader and a share of the CPU until its last byte; a merchant
 * running many at once would crowd out the others. One pool per instance, shared by both kinds:
 * at most CONCIL_MAX_CONCURRENT_PER_MERCHANT at a time per merchant, beyond it 429
 * `too_many_searches` with `Retry-After: 1`, answered before any byte.
 */
export class StreamSlots {
  /** Answers running per merchant (tests read it). */
  readonly running = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Takes one of the merchant's slots, or throws the 429; answers the slot's release (a second call does nothing). */
  take(merchant: string): () => void {
    const running = this.running.get(merchant) ?? 0;
    if (running >= this.max) {
      throw new ApiError(
        429,
        'too_many_searches',
        `At most ${this.max} range searches or bank slip listings may run at the same time for a merchant; retry when one has finished.`,
      ).withHeader('Retry-After', '1');
    }
    this.running.set(merchant, running + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.running.get(merchant) ?? 1) - 1;
      if (left > 0) this.running.set(merchant, left);
      else this.running.delete(merchant);
    };
  }
}

/**
 * The pages of a streamed answer holding a slot: taken now (so the 429 is sent before any byte),
 * given back when the iteration ends however it ends (done, failed, or `return()` when the client
 * went away). The caller must consume or `return()` the iterator: a generator never started never
 * runs its `finally` (sendJsonArray always does one or the other).
 */
export function withSlot<T>(slots: StreamSlots, merchant: string, pages: () => AsyncGenerator<T>): AsyncIterable<T> {
  const release = slots.take(merchant);
  async function* held(): AsyncGenerator<T> {
    try {
      yield* pages();
    } finally {
      release();
    }
  }
  const it = held();
  return { [Symbol.asyncIterator]: () => it };
}
