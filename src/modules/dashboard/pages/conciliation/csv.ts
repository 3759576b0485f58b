import { Readable } from 'node:stream';
import { batchRecords, type JsonBatch } from '../../../../http/json-stream.js';

/**
 * The conciliation export: the records of the integration API's range searches as
 * CSV, written while they are read. Semicolon-separated (the separator spreadsheets expect in
 * pt-BR, where the comma is the decimal mark), a header row of the API's field names, CRLF line
 * ends (RFC 4180), UTF-8 with a BOM so that spreadsheets read the accents.
 */

/** Integer fields of the records; every other number is a 10,4 decimal (amounts, rates). */
const INTEGER_FIELDS = new Set(['installmentNumber', 'installmentsCount', 'installments']);
const CHUNK_CHARS = 64 * 1024;

/**
 * A 10,4 decimal as the API's JSON wrote it, with at least 2 decimals: 150 -> "150.00",
 * 150.5 -> "150.50", 0.3333 -> "0.3333". Built from the number's shortest text, which is the
 * exact decimal the API wrote (src/modules/settlement/conciliation-json.ts: d4Text), never rounded through a float.
 */
export function decimalText(value: number): string {
  const text = String(value);
  if (/e/i.test(text)) return value.toFixed(4).replace(/0{1,2}$/, '');
  const [whole, fraction = ''] = text.split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}

function cell(name: string, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return INTEGER_FIELDS.has(name) ? String(value) : decimalText(value);
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  // A text starting like a formula is kept as text by spreadsheets (CSV injection).
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[";\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** CSV text of the records (each a JSON object text as the search yields it), header from `columns`. */
export function csvStream(columns: readonly string[], records: AsyncIterable<JsonBatch>): Readable {
  async function* body(): AsyncGenerator<string> {
    let out = `\ufeff${columns.join(';')}\r\n`;
    for await (const page of records) {
      for (const record of batchRecords(page)) {
        out += columns.map((c) => cell(c, record[c])).join(';') + '\r\n';
        if (out.length >= CHUNK_CHARS) {
          yield out;
          out = '';
        }
      }
    }
    yield out;
  }
  return Readable.from(body(), { objectMode: false, highWaterMark: 1 });
}
