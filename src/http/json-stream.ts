import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** About the size of the chunks written: below V8's large-object threshold (128 KB), see below. */
const CHUNK_CHARS = 64 * 1024;

/**
 * A batch of a streamed JSON array: its items, and how one item becomes its JSON text. The text
 * is made when the item is written, not before (see jsonArrayStream).
 */
export interface JsonBatch<T = any> {
  items: readonly T[];
  toJson(item: T): string;
}

/** The items of a batch as the API writes them, parsed, for consumers that are not a JSON answer (the dashboard's CSV). */
export function batchRecords(batch: JsonBatch): Record<string, unknown>[] {
  return batch.items.map((item) => JSON.parse(batch.toJson(item)) as Record<string, unknown>);
}

/**
 * A JSON array answer written while it is read (conciliation ranges, bank slip listings). `batches`
 * yields a page of items at a time; the array's brackets and commas are added here, so the bytes
 * are those of `JSON.stringify(items)` when each item's text is.
 *
 * Backpressure and disconnects come from the stream: Fastify pipes it into the response, a
 * full socket stops the pulls (highWaterMark 1: at most one chunk read ahead), and a client that
 * goes away destroys the stream, which calls `return()` on the generator: its `finally` runs
 * and no further batch is read.
 *
 * Memory and the garbage collector decide the shape:
 * - A batch is serialized and encoded to Buffers of ~64 KB in one synchronous stretch, each
 *   item's text made just before it is appended: a row's text (a rope of dozens of small
 *   strings) dies at once, young, instead of a page of them living across the event-loop turns
 *   of a slow socket, where the collector copies them, promotes them and pays for them again in
 *   a full collection. The Buffers' bytes are outside V8's heap.
 * - Chunks, not one Buffer per page: a string or Buffer above 128 KB lives in V8's
 *   large-object space, which only a full collection frees (with a fast client, tens of MB of
 *   dead pages would pile up there between collections).
 */
export function jsonArrayStream(batches: AsyncIterable<JsonBatch>): Readable {
  async function* body(): AsyncGenerator<Buffer> {
    let out = '[';
    let first = true;
    for await (const { items, toJson } of batches) {
      const ready: Buffer[] = [];
      for (let i = 0; i < items.length; i++) {
        if (first) first = false;
        else out += ',';
        out += toJson(items[i]);
        if (out.length >= CHUNK_CHARS) {
          ready.push(Buffer.from(out));
          out = '';
        }
      }
      yield* ready;
    }
    yield Buffer.from(out + ']');
  }
  return Readable.from(body(), { objectMode: false, highWaterMark: 1 });
}

/** Sends a streamed JSON array; the hooks' headers (X-Request-Id) are kept, as with any reply.send. */
export function sendJsonArray(reply: FastifyReply, batches: AsyncIterable<JsonBatch>): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(jsonArrayStream(batches));
}
