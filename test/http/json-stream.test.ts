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

/** An encoded batch as a reader thread answers it: the items' texts joined by commas, cut into Buffers anywhere. */
function encoded(items: object[], cuts: number[] = []): JsonBatch {
  const text = Buffer.from(items.map((i) => JSON.stringify(i)).join(','));
  const bounds = [0, ...cuts, text.length];
  return { count: items.length, encoded: bounds.slice(1).map((end, k) => text.subarray(bounds[k], end)) };
}

const plain = (items: object[]): JsonBatch<object> => ({ items, toJson: (i) => JSON.stringify(i) });

describe('jsonArrayStream: item batches and encoded batches make one JSON array', () => {
  const a = [{ n: 1 }, { n: 2, s: 'é"\\' }];
  const b = [{ n: 3 }];
  const c = [{ n: 4 }, { n: 5 }, { n: 6 }];

  it('writes the bytes of JSON.stringify of all the items, whatever the mix and order of batch kinds', async () => {
    const all = [...a, ...b, ...c];
    const mixes: JsonBatch[][] = [
      [encoded(a), encoded(b), encoded(c, [3, 9])],
      [plain(a), encoded(b), plain(c)],
      [encoded(a, [1]), plain(b), encoded(c)],
      [encoded([]), encoded(a), plain([]), encoded([]), plain(b), encoded(c), encoded([])],
    ];
    for (const mix of mixes) expect(Buffer.concat(await chunksOf(mix)).toString()).toBe(JSON.stringify(all));
    expect(Buffer.concat(await chunksOf([encoded([]), plain([])])).toString()).toBe('[]');
  });

  it('sends no separator or bracket as a chunk of its own: the first chunk opens with the first record, the last ends with it', async () => {
    const chunks = await chunksOf([encoded(a, [5]), encoded(b), encoded(c, [4])]);
    expect(chunks[0].toString()).toBe('[{"n":');
    expect(chunks.at(-1)!.toString().endsWith('{"n":6}]')).toBe(true);
    expect(chunks.every((chunk) => chunk.length > 2)).toBe(true);
  });

  it('batchRecords parses either kind into the same records (the dashboard CSV reads them)', () => {
    expect(batchRecords(encoded(a, [7]))).toEqual(a);
    expect(batchRecords(plain(a))).toEqual(a);
    expect(batchRecords(encoded([]))).toEqual([]);
  });
});
