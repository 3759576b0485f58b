import type { Database } from '../../db/connection.js';
import { keysetPages } from '../../db/keyset-pages.js';
import type { JsonBatch } from '../../http/json-stream.js';
import { listColumns, type ListColumns } from './list-columns.js';
import { CREDIT_FIELDS, LIST_FIELDS } from './record-fields.js';
import { bankSlipsRepository as repo, type DateColumn, type ListCursor, type ListPageRow, type ListRange } from './repository.js';

/** Which record a listing answers: the list record (due and payment dates) or the credit record. */
export type ListFields = 'list' | 'credit';

/**
 * A listing's records as JSON batches in (date, seq) order: joined with `,` inside `[...]` they
 * are the bytes a single query over the whole window would answer (on PostgreSQL without
 * json_build_object's spaces). The pages are separate reads, never one transaction: a slow client must not hold a
 * snapshot (SQLite's WAL could not checkpoint, PostgreSQL would keep an idle transaction open);
 * a slip changed meanwhile is answered once, as it was when its page was read. Reading stops
 * when the consumer stops asking (the client went away and the route's stream was destroyed).
 * Per engine (docs/architecture.md, "Streamed JSON arrays"):
 * - PostgreSQL: keyset pages of columns as arrays, the JSON made here (list-columns.ts), the
 *   next page asked for while this one is written;
 * - SQLite: keyset pages of the JSON the database writes (`jsonObject`, record-fields.ts
 *   sqlJsonObject).
 */
export async function* listingPages(
  database: Database,
  fields: ListFields,
  jsonObject: string,
  accountNumber: number,
  column: DateColumn,
  range: ListRange,
  pageSize: number,
): AsyncGenerator<JsonBatch> {
  const { db, raw } = database;
  if (raw && 'postgres' in raw) {
    const shape = shapeOf(fields, column);
    const pages = keysetPages(
      (after: ListCursor | undefined) => repo.listColumnsPage(raw.postgres, shape, accountNumber, column, range, pageSize, after),
      (row): ListCursor => ({ date: row[shape.datePosition] as string, seq: row[shape.seqPosition] as number }),
      pageSize,
      true,
    );
    for await (const rows of pages) yield { items: rows, toJson: shape.toJson };
    return;
  }
  const pages = keysetPages(
    (after: ListCursor | undefined) => repo.listJsonPage(db, jsonObject, accountNumber, column, range, pageSize, after),
    (row): ListCursor => ({ date: row.date, seq: row.seq }),
    pageSize,
    false,
  );
  for await (const rows of pages) yield { items: rows, toJson: (r: ListPageRow) => r.json };
}

/** The column shapes of the two records, per date column, made once. */
const shapes = new Map<string, ListColumns>();
function shapeOf(fields: ListFields, column: DateColumn): ListColumns {
  const key = `${fields} ${column}`;
  let shape = shapes.get(key);
  if (!shape) shapes.set(key, (shape = listColumns(fields === 'list' ? LIST_FIELDS : CREDIT_FIELDS, column)));
  return shape;
}
