import { StringDecoder } from 'node:string_decoder';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';

/**
 * Reads a query's rows through PostgreSQL's `COPY (query) TO STDOUT` (text format) instead of
 * the extended protocol, for the streamed range searches. The node-postgres parser makes a Buffer
 * slice and a UTF-8 decode per field (29 native calls a conciliation row); this makes one decode
 * per ~64 KB chunk, then splits on tabs in V8, so a row costs markedly less to read, with the
 * same values (test/db/pg-copy.test.ts and the byte-for-byte search tests).
 *
 * COPY takes no bind parameters: `$1`.. in the query are replaced by the values as literals
 * (`literal` below). Each row becomes an array: `numeric` columns as numbers (integers only,
 * read digit by digit: the caller's columns are integer or bigint, all below 2^53), `\N` as
 * null, every other column as its text, with COPY's backslash escapes undone.
 */
export async function copyRows(pool: pg.Pool, query: string, parameters: readonly unknown[], numeric: readonly boolean[]): Promise<unknown[][]> {
  // One pass, so a literal's own text is never read as a placeholder.
  const inlined = query.replace(/\$(\d+)/g, (_, n: string) => literal(parameters[Number(n) - 1]));
  const client = await pool.connect();
  let failed: unknown;
  try {
    const stream = client.query(copyTo(`copy (${inlined}) to stdout`));
    // The text is kept as it came (a few flat strings) and parsed once the COPY is done, in one
    // synchronous stretch: rows built while the socket is read would live across event-loop
    // turns and be promoted by the collector, growing the old generation until a full collection.
    const decoder = new StringDecoder('utf8');
    const texts: string[] = [];
    for await (const chunk of stream as AsyncIterable<Buffer>) texts.push(decoder.write(chunk));
    const rows: unknown[][] = [];
    let rest = '';
    for (const piece of texts) {
      const text = rest + piece;
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        rows.push(parseLine(text.slice(start, nl), numeric));
        start = nl + 1;
      }
      rest = text.slice(start);
    }
    return rows;
  } catch (error) {
    failed = error;
    throw error;
  } finally {
    // A connection whose COPY failed half-way may still be in the copy state: it is dropped,
    // not given back to the pool.
    client.release(failed instanceof Error ? failed : undefined);
  }
}

const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };
const ESCAPE = /\\([bfnrtv\\]|[0-7]{1,3}|x[0-9a-fA-F]{1,2})/g;

/** A column's text as COPY writes it (text format): backslash escapes for backslash and control characters. */
export function unescapeCopyText(field: string): string {
  return field.replace(ESCAPE, (_, e: string) =>
    ESCAPES[e] ?? (e[0] === 'x' ? String.fromCharCode(parseInt(e.slice(1), 16)) : String.fromCharCode(parseInt(e, 8))),
  );
}

/**
 * One COPY line as an array. A hand scan rather than `split('\t')`: integers are read from the
 * digits in place (no string per field) and text fields are one slice each, where split + Number
 * makes a string for every field first.
 */
function parseLine(line: string, numeric: readonly boolean[]): unknown[] {
  const fields: unknown[] = new Array(numeric.length);
  const length = line.length;
  let at = 0;
  for (let f = 0; f < numeric.length; f++) {
    if (numeric[f]) {
      let c = line.charCodeAt(at);
      if (c === 92) {
        // \N: null
        fields[f] = null;
        at += 3;
        continue;
      }
      const negative = c === 45;
      if (negative) at++;
      let value = 0;
      while (at < length && (c = line.charCodeAt(at)) !== 9) {
        value = value * 10 + (c - 48);
        at++;
      }
      fields[f] = negative ? -value : value;
      at++;
    } else {
      let end = line.indexOf('\t', at);
      if (end === -1) end = length;
      const value = line.slice(at, end);
      fields[f] = value === '\\N' ? null : value.includes('\\') ? unescapeCopyText(value) : value;
      at = end + 1;
    }
  }
  return fields;
}

/**
 * A value as an SQL literal, for COPY's parameterless query: safe integers as digits, strings
 * quoted by the driver's own escaping (`E'...'` when they hold a backslash). Anything else is
 * refused rather than guessed.
 */
export function literal(value: unknown): string {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'string') return pg.escapeLiteral(value);
  throw new Error(`not an integer or a string: ${typeof value}`);
}
