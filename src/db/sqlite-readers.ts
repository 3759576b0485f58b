import type { Worker } from 'node:worker_threads';
import { startThread } from '../threads.js';
import { orderedReads } from './keyset-pages.js';

/**
 * Reader threads for a SQLite file database (the streamed range searches).
 *
 * A month's conciliation range can be tens of thousands of rows; on the event loop, reading them
 * through the single connection (SQLite's record decoding and 29 JavaScript values a row) and
 * writing their JSON takes a whole core for that long and stops every other request meanwhile. Here
 * each thread has its own read-only connection (WAL lets readers run beside the writer, and they
 * see only committed data) and turns the rows into JSON Buffers itself, so the event loop only
 * writes Buffers; the pages of one range are read by several threads at once (see
 * settlement/search.ts; the bank slip listings do the same). DB_READER_THREADS sets how many (0:
 * read on the event loop).
 *
 * Threads start at the first read, so a process that never searches never starts one. A thread
 * that dies fails the reads it held, and the next read starts a new one.
 */

export type ReaderRequest =
  | { id: number; kind: 'column'; sql: string; params: unknown[] }
  | { id: number; kind: 'json'; sql: string; params: unknown[]; serializer: { module: string; name: string } };

export type ReaderAnswer =
  | { id: number; values: unknown[] }
  | { id: number; count: number; chunks: Uint8Array[] }
  | { id: number; error: string };

/** A page read and serialized by a thread: `chunks` are its items' JSON texts joined by commas. */
export interface JsonPage {
  count: number;
  chunks: Buffer[];
}

interface Pending {
  resolve(answer: ReaderAnswer): void;
  reject(error: Error): void;
}

class ReaderThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  /** Requests sent and not answered yet: the least busy thread gets the next one. */
  get load(): number {
    return this.pending.size;
  }

  get running(): boolean {
    return this.worker !== null;
  }

  constructor(private readonly data: { path: string; mmapSize: number; cacheKb: number }) {}

  private start(): Worker {
    const worker = startThread(new URL('./sqlite-reader-thread.js', import.meta.url), { workerData: this.data });
    // Reader threads never keep the process alive; an idle one waits on its port only.
    worker.unref();
    worker.on('message', (answer: ReaderAnswer) => {
      const waiter = this.pending.get(answer.id);
      if (!waiter) return;
      this.pending.delete(answer.id);
      if ('error' in answer) waiter.reject(new Error(`SQLite reader: ${answer.error}`));
      else waiter.resolve(answer);
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const waiter of this.pending.values()) waiter.reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`SQLite reader thread exited (code ${code})`)));
    return worker;
  }

  send(request: ReaderRequest): Promise<ReaderAnswer> {
    this.worker ??= this.start();
    const worker = this.worker;
    return new Promise<ReaderAnswer>((resolve, reject) => {
      this.pending.set(request.id, { resolve, reject });
      worker.postMessage(request);
    });
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }
}

export class SqliteReaders {
  private readonly threads: ReaderThread[];
  private next = 0;
  /** Requests sent so far (tests check that a read went through the threads). */
  requests = 0;

  constructor(
    path: string,
    readonly size: number,
    options: { mmapSize: number; cacheKb: number },
  ) {
    this.threads = Array.from({ length: size }, () => new ReaderThread({ path, ...options }));
  }

  /** Threads started and alive (they start at their first read). */
  get running(): number {
    return this.threads.filter((t) => t.running).length;
  }

  /** The thread with the fewest requests in hand (ties: the first). */
  private pick(): ReaderThread {
    return this.threads.reduce((best, t) => (t.load < best.load ? t : best), this.threads[0]);
  }

  /** The first column of every row (a flat array: a long list of ids costs one value a row to hand over). */
  async column(sql: string, params: unknown[]): Promise<unknown[]> {
    this.requests++;
    const answer = await this.pick().send({ id: ++this.next, kind: 'column', sql, params });
    return (answer as { values: unknown[] }).values;
  }

  /** A page read and made JSON text in a thread, by `serializer` (an exported function of the module at that URL, taking a row as an array). */
  async json(sql: string, params: unknown[], serializer: { module: string; name: string }): Promise<JsonPage> {
    this.requests++;
    const answer = (await this.pick().send({ id: ++this.next, kind: 'json', sql, params, serializer })) as { count: number; chunks: Uint8Array[] };
    // The memory was handed over (transferred): wrapping it copies nothing.
    return { count: answer.count, chunks: answer.chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)) };
  }

  /**
   * The pages of a read whose row ids are known in answer order (walked first by `column`):
   * `pageRows` ids a page, each read by `read` on the threads, two per thread in flight, answered
   * in order (orderedReads: no more pages held than that, none read after the consumer stops).
   */
  pagesOfIds(ids: readonly number[], pageRows: number, read: (ids: number[]) => Promise<JsonPage>): AsyncGenerator<JsonPage> {
    return orderedReads(Math.ceil(ids.length / pageRows), (i) => read(ids.slice(i * pageRows, (i + 1) * pageRows)), 2 * this.size);
  }

  async stop(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.stop()));
  }
}
