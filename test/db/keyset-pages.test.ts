import { describe, expect, it } from 'vitest';
import { keysetPages, orderedReads } from '../../src/db/keyset-pages.js';

/** The keyset page reader of the streamed searches and listings (src/db/keyset-pages.ts). */
function source(total: number) {
  const rows = Array.from({ length: total }, (_, i) => i + 1);
  const log: string[] = [];
  const read = async (after: number | undefined) => {
    log.push(`read after ${after ?? '-'}`);
    return rows.filter((r) => r > (after ?? 0)).slice(0, 3);
  };
  return { read, log };
}

describe('keysetPages', () => {
  it('reads every row once, in order, a page after the last key; an exact multiple ends with an empty read', async () => {
    for (const prefetchNext of [false, true]) {
      const { read, log } = source(6);
      const seen: number[][] = [];
      for await (const page of keysetPages(read, (r) => r, 3, prefetchNext)) seen.push(page);
      expect(seen).toEqual([[1, 2, 3], [4, 5, 6]]);
      expect(log).toEqual(['read after -', 'read after 3', 'read after 6']);
    }
  });

  it('with read-ahead the next page is asked for before this one is handed over; without, only when it is needed', async () => {
    for (const prefetchNext of [false, true]) {
      const { read, log } = source(9);
      const pages = keysetPages(read, (r) => r, 3, prefetchNext);
      await pages.next();
      expect(log).toEqual(prefetchNext ? ['read after -', 'read after 3'] : ['read after -']);
      await pages.return(undefined);
    }
  });

  it('a page read ahead and left unread (the consumer stopped) is dropped, its failure too', async () => {
    let calls = 0;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const read = async () => {
        calls += 1;
        if (calls === 2) throw new Error('connection lost');
        return [1, 2, 3];
      };
      const pages = keysetPages(read, (r) => r, 3, true);
      expect((await pages.next()).value).toEqual([1, 2, 3]);
      await pages.return(undefined);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(calls).toBe(2);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('a failed read the consumer waits for is thrown to it', async () => {
    const pages = keysetPages(async () => { throw new Error('gone'); }, (r: number) => r, 3, true);
    await expect(pages.next()).rejects.toThrow('gone');
  });
});

describe('orderedReads', () => {
  /** Reads that finish in reverse order of asking (a later page is ready before an earlier one). */
  function reads() {
    const log: string[] = [];
    let open = 0;
    let most = 0;
    const read = (i: number) => {
      log.push(`ask ${i}`);
      most = Math.max(most, ++open);
      return new Promise<string>((resolve, reject) =>
        setTimeout(() => {
          open--;
          if (i === 4) reject(new Error('page 4 failed'));
          else resolve(`page ${i}`);
        }, 30 - 5 * (i % 4)),
      );
    };
    return { read, log, most: () => most };
  }

  it('answers every read in order, with no more than inFlight asked at once', async () => {
    const { read, most } = reads();
    const seen: string[] = [];
    for await (const page of orderedReads(4, read, 3)) seen.push(page);
    expect(seen).toEqual(['page 0', 'page 1', 'page 2', 'page 3']);
    expect(most()).toBe(3);
  });

  it('a failed read fails the iteration at its turn; a consumer that stops asks nothing more and a read left unread fails nobody', async () => {
    const failing = reads();
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const page of orderedReads(6, failing.read, 2)) seen.push(page);
      })(),
    ).rejects.toThrow('page 4 failed');
    expect(seen).toEqual(['page 0', 'page 1', 'page 2', 'page 3']);

    const stopping = reads();
    for await (const page of orderedReads(8, stopping.read, 2)) {
      if (page === 'page 1') break;
    }
    // Each page taken asks for the one inFlight further on: 2 with page 0, 3 with page 1; nothing after the consumer stopped.
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(stopping.log).toEqual(['ask 0', 'ask 1', 'ask 2', 'ask 3']);
    const leftUnread = reads();
    for await (const page of orderedReads(6, leftUnread.read, 3)) {
      if (page === 'page 2') break; // page 4 (failing) was asked and is never read: no unhandled rejection
    }
    await new Promise((resolve) => setTimeout(resolve, 60));
  });
});
