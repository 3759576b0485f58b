import { describe, expect, it } from 'vitest';
import { keysetPages } from '../../src/db/keyset-pages.js';

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
