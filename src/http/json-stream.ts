import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** About the size of the chunks written: below V8's large-object threshold (128 KB), see below. */
const CHUNK_CHARS = 64 * 1024;

/**
 * A JSON array answer written while it is read (issue 16: conciliation ranges, bank slip
 * listings). `chunks` yields batches of items already serialized to JSON text; the array's
 * brackets and commas are added here, so the bytes are those of `JSON.stringify(items)` when
 * each item's text is.
 *
 * Backpressure and disconnects come from the stream: Fastify pipes it into the response, a
 * full socket stops the pulls (highWaterMark 1: at most one chunk read ahead), and a client that
 * goes away destroys the stream, which calls `return()` on the generator: its `finally` runs
 * and no further batch is read.
 *
 * A batch (a page of a few thousand items, ~1.6 MB of text) is written as chunks of ~64 KB
 * rather than as one string: a string (and the Buffer it becomes on the socket) above 128 KB
 * lives in V8's large-object space, which only a full collection frees, so a fast client made
 * the process keep tens of MB of dead pages between collections (docs/performance.md: +67 MB
 * anonymous memory under back-to-back listings, +90 MB during a 90,000-record search); chunks
 * this size die young, in the cheap collections. Appending to one string is also faster than
 * joining each batch.
 */
export function jsonArrayStream(chunks: AsyncIterable<string[]>): Readable {
  async function* body(): AsyncGenerator<string> {
    let out = '[';
    let first = true;
    for await (const items of chunks) {
      for (let i = 0; i < items.length; i++) {
        if (first) first = false;
        else out += ',';
        out += items[i];
        if (out.length >= CHUNK_CHARS) {
          yield out;
          out = '';
        }
      }
    }
    yield out + ']';
  }
  return Readable.from(body(), { objectMode: false, highWaterMark: 1 });
}

/** Sends a streamed JSON array; the hooks' headers (X-Request-Id) are kept, as with any reply.send. */
export function sendJsonArray(reply: FastifyReply, chunks: AsyncIterable<string[]>): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(jsonArrayStream(chunks));
}
