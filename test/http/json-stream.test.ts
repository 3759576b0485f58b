import { describe, expect, it } from 'vitest';
import { batchRecords, jsonArrayStream, type JsonBatch } from '../../src/http/json-stream.js';

/** Reads a stream whole, keeping its chunks. */
async function chunksOf(batches: JsonBatch[]): Promise<Buffer[]> {
  async function* source() {
    yield* batches;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of jsonArrayStream(source())) chunks.push(chunk as Buffer);
  return chunks;
}

const plain = (items: object[]): JsonBatch<object> => ({ items, toJson: (i) => JSON.stringify(i) });

describe('jsonArrayStream: batches make one JSON array', () => {
  const a = [{ n: 1 }, { n: 2, s: 'é"\\' }];
  const b = [{ n: 3 }];
  const c = [{ n: 4 }, { n: 5 }, { n: 6 }];

  it('writes the bytes of JSON.stringify of all the items, empty batches included', async () => {
    const all = [...a, ...b, ...c];
    expect(Buffer.concat(await chunksOf([plain(a), plain(b), plain(c)])).toString()).toBe(JSON.stringify(all));
    expect(Buffer.concat(await chunksOf([plain([]), plain(a), plain([]), plain(b), plain(c), plain([])])).toString()).toBe(JSON.stringify(all));
    expect(Buffer.concat(await chunksOf([plain([])])).toString()).toBe('[]');
  });

  it('cuts a large batch into chunks of about 64 KB, none above V8\'s large-object threshold', async () => {
    const big = Array.from({ length: 5_000 }, (_, n) => ({ n, text: 'x'.repeat(100) }));
    const chunks = await chunksOf([plain(big)]);
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.every((chunk) => chunk.length < 128 * 1024)).toBe(true);
    expect(Buffer.concat(chunks).toString()).toBe(JSON.stringify(big));
  });

  it('batchRecords parses a batch into the records the API writes (the dashboard CSV reads them)', () => {
    expect(batchRecords(plain(a))).toEqual(a);
    expect(batchRecords(plain([]))).toEqual([]);
  });
});
