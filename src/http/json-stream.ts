import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/**
 * A JSON array answer written while it is read (issue 16: conciliation ranges, bank slip
 * listings). `chunks` yields batches of items already serialized to JSON text; the array's
 * brackets and commas are added here, so the bytes are those of `JSON.stringify(items)` when
 * each item's text is.
 *
 * Backpressure and disconnects come from the stream: Fastify pipes it into the response, a
 * full socket stops the pulls (highWaterMark 1: at most one batch read ahead), and a client that
 * goes away destroys the stream, which calls `return()` on the generator: its `finally` runs
 * and no further batch is read.
 */
export function jsonArrayStream(chunks: AsyncIterable<string[]>): Readable {
  async function* body(): AsyncGenerator<string> {
    let first = true;
    yield '[';
    for await (const items of chunks) {
      if (items.length === 0) continue;
      yield (first ? '' : ',') + items.join(',');
      first = false;
    }
    yield ']';
  }
  return Readable.from(body(), { objectMode: false, highWaterMark: 1 });
}

/** Sends a streamed JSON array; the hooks' headers (X-Request-Id) are kept, as with any reply.send. */
export function sendJsonArray(reply: FastifyReply, chunks: AsyncIterable<string[]>): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(jsonArrayStream(chunks));
}
