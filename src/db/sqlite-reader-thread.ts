/**
 * A SQLite reader thread (see sqlite-readers.ts): its own read-only connection to the database
 * file, answering one request at a time from the main thread.
 * - `column`: the first column of every row, as one flat array (a range's ids);
 * - `json`: the rows made JSON text by a serializer the caller names (a module and an export),
 *   joined with commas and encoded into Buffers of ~64 KB whose memory is handed over to the main
 *   thread, not copied; with the row count.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import type { ReaderRequest, ReaderAnswer } from './sqlite-readers.js';

/** Below V8's large-object threshold (128 KB), as in src/http/json-stream.ts. */
const CHUNK_CHARS = 64 * 1024;

const { path, mmapSize, cacheKb } = workerData as { path: string; mmapSize: number; cacheKb: number };
const db = new SQLite(path, { readonly: true, fileMustExist: true });
db.pragma(`mmap_size = ${mmapSize}`);
db.pragma(`cache_size = -${cacheKb}`);
db.pragma('busy_timeout = 5000');

const statements = new Map<string, SQLite.Statement>();
const serializers = new Map<string, Promise<(row: unknown[]) => string>>();

function statement(sql: string): SQLite.Statement {
  let found = statements.get(sql);
  if (!found) statements.set(sql, (found = db.prepare(sql).raw(true)));
  return found;
}

const columns = new Map<string, SQLite.Statement>();
function columnStatement(sql: string): SQLite.Statement {
  let found = columns.get(sql);
  if (!found) columns.set(sql, (found = db.prepare(sql).pluck(true)));
  return found;
}

function serializer(module: string, name: string): Promise<(row: unknown[]) => string> {
  const key = `${module}#${name}`;
  let found = serializers.get(key);
  if (!found) {
    found = import(module).then((m) => {
      if (typeof m[name] !== 'function') throw new Error(`${module} has no function ${name}`);
      return m[name] as (row: unknown[]) => string;
    });
    serializers.set(key, found);
  }
  return found;
}

async function answer(request: ReaderRequest): Promise<{ answer: ReaderAnswer; transfer: ArrayBuffer[] }> {
  if (request.kind === 'column') return { answer: { id: request.id, values: columnStatement(request.sql).all(...request.params) }, transfer: [] };
  const rows = statement(request.sql).all(...request.params) as unknown[][];
  const toJson = await serializer(request.serializer.module, request.serializer.name);
  const chunks: Buffer[] = [];
  let out = '';
  for (let i = 0; i < rows.length; i++) {
    if (i > 0) out += ',';
    out += toJson(rows[i]);
    if (out.length >= CHUNK_CHARS) {
      chunks.push(Buffer.from(out));
      out = '';
    }
  }
  if (out.length > 0) chunks.push(Buffer.from(out));
  // Buffer.from may slice a shared pool; copy those few so each chunk owns its ArrayBuffer to hand over.
  const owned = chunks.map((c) => (c.byteOffset === 0 && c.byteLength === c.buffer.byteLength ? c : Buffer.from(Uint8Array.prototype.slice.call(c))));
  return { answer: { id: request.id, count: rows.length, chunks: owned }, transfer: owned.map((c) => c.buffer as ArrayBuffer) };
}

// The main thread stops a reader by terminating it; better-sqlite3 closes the connection then.
parentPort!.on('message', (request: ReaderRequest) => {
  answer(request).then(
    ({ answer, transfer }) => parentPort!.postMessage(answer, transfer),
    (error: Error) => parentPort!.postMessage({ id: request.id, error: error.message } satisfies ReaderAnswer),
  );
});
