import { CompiledQuery, sql, type Insertable } from 'kysely';
import type SQLite from 'better-sqlite3';
import type { Database, Executor } from '../../db/connection.js';
import { arrayRows } from '../../db/pg-rows.js';
import type { ReceivablesTable } from '../../db/schema.js';
import { addDays } from '../../domain/calendar.js';
import { INSTALLMENT_COLUMNS, KEY_POSITIONS, SUMMARY_COLUMNS, type ColumnValues, type ReceivableRow } from './conciliation-json.js';

/** Half-open UTC bounds of an inclusive date range, for ISO datetime columns (they sort as text). */
const dayRange = (start: string, end: string) => [`${start}T00:00:00.000Z`, `${addDays(end, 1)}T00:00:00.000Z`] as const;

/** What an installment's notification needs of its row. */
const INSTALLMENT_CHANGE = ['merchant_id', 'account_number', 'nsu', 'cod_auth', 'installment_number', 'transaction_at', 'source_type', 'source_id'] as const;
export type InstallmentChange = Pick<ReceivableRow, (typeof INSTALLMENT_CHANGE)[number]> & Partial<Pick<ReceivableRow, 'installment_status' | 'received_status'>>;

/** Where a range read stopped: the answer order is (transaction_at, installment_number, id). */
export interface RangeKey {
  at: string;
  n: number;
  id: number;
}
export type RangeKind = 'operation-date' | 'operation-date-installments' | 'payment-date';

/** The WHERE of a range read: parameters are the account, the end bound, then the start bound(s). */
function rangeWhere(p: () => string, kind: RangeKind): string {
  let where = `account_number = ${p()} and transaction_at < ${p()}`;
  if (kind === 'payment-date') where += ` and receipt_date >= ${p()} and receipt_date <= ${p()}`;
  else where += ` and transaction_at >= ${p()}`;
  if (kind === 'operation-date') where += ' and installment_number = 1';
  return where;
}

const ORDER = 'order by transaction_at, installment_number, id';

/**
 * The SQL text of a range page, built once per shape and engine: parameters are, in order, the
 * account, the end bound, the start bound(s), the keyset (at, at, at, n, n, id) when resuming,
 * the limit, the offset when paging by offset.
 */
function rangePageSql(dialect: 'sqlite' | 'postgres', kind: RangeKind, resume: boolean, offset: boolean): string {
  let n = 0;
  const p = () => (dialect === 'sqlite' ? '?' : `$${++n}`);
  const columns = (kind === 'operation-date' ? SUMMARY_COLUMNS : INSTALLMENT_COLUMNS).join(', ');
  let where = rangeWhere(p, kind);
  // The first condition bounds the index scan; the second is the exact keyset.
  if (resume) where += ` and transaction_at >= ${p()} and (transaction_at > ${p()} or (transaction_at = ${p()} and (installment_number > ${p()} or (installment_number = ${p()} and id > ${p()}))))`;
  return `select ${columns} from receivables where ${where} ${ORDER} limit ${p()}${offset ? ` offset ${p()}` : ''}`;
}

const keyParams = (k: RangeKey) => [k.at, k.at, k.at, k.n, k.n, k.id];

const pageSql = new Map<string, string>();
function pageText(dialect: 'sqlite' | 'postgres', kind: RangeKind, resume: boolean, offset: boolean): string {
  const key = `${dialect} ${kind} ${resume ? 1 : 0} ${offset ? 1 : 0}`;
  let text = pageSql.get(key);
  if (text === undefined) pageSql.set(key, (text = rangePageSql(dialect, kind, resume, offset)));
  return text;
}

/** The parameters every range read starts with: the account, the end bound, the start bound(s). */
function rangeParams(kind: RangeKind, account: number, start: string, end: string): unknown[] {
  const [from, to] = dayRange(start, end);
  return [account, to, ...(kind === 'payment-date' ? [start, end] : [from])];
}

/** better-sqlite3 statements of the range pages, per database handle, set to answer arrays. */
const sqliteStatements = new WeakMap<SQLite.Database, Map<string, SQLite.Statement>>();

/**
 * Runs a range page's SQL with rows as arrays: on the driver's own handle when the database
 * exposes one (a prepared statement on SQLite, node-postgres's array rows: see src/db/pg-rows.ts),
 * else through Kysely.
 */
async function rowsAsArrays(database: Database, text: string, parameters: unknown[]): Promise<ColumnValues[]> {
  const raw = database.raw;
  if (raw && 'sqlite' in raw) {
    let statements = sqliteStatements.get(raw.sqlite);
    if (!statements) sqliteStatements.set(raw.sqlite, (statements = new Map()));
    let statement = statements.get(text);
    if (!statement) statements.set(text, (statement = raw.sqlite.prepare(text).raw(true)));
    // Holding Kysely's connection for the read: SQLite has one connection, and a transaction of
    // another request may be open on it across an await; read outside the lock, this page would
    // see that transaction's rows before its commit (or rollback).
    const prepared = statement;
    return database.db.connection().execute(async () => prepared.all(...parameters) as ColumnValues[]);
  }
  if (raw && 'postgres' in raw) return (await arrayRows(raw.postgres, text, parameters)) as ColumnValues[];
  const result = await database.db.executeQuery(CompiledQuery.raw(text, parameters));
  return (result.rows as Record<string, unknown>[]).map((row) => Object.values(row));
}

export const receivablesRepository = {
  async insert(db: Executor, rows: Insertable<ReceivablesTable>[]): Promise<void> {
    if (rows.length > 0) await db.insertInto('receivables').values(rows).execute();
  },

  /** A blocked sale approved by review: its blocked installments become approved. */
  async release(db: Executor, sourceId: string): Promise<void> {
    await db.updateTable('receivables').set({ installment_status: 'A' }).where('source_id', '=', sourceId).where('installment_status', '=', 'B').execute();
  },

  /**
   * Cancels a sale's installments not cancelled yet; answers them as they were before (their
   * notifications need the old status). A refund's debit (installment 0) is money the merchant
   * owes whatever becomes of the sale: it stays.
   */
  async cancel(db: Executor, sourceId: string): Promise<InstallmentChange[]> {
    const before = await db
      .selectFrom('receivables')
      .select([...INSTALLMENT_CHANGE, 'installment_status', 'received_status'])
      .where('source_id', '=', sourceId)
      .where('installment_status', '!=', 'C')
      .where('installment_number', '>', 0)
      .orderBy('installment_number')
      .execute();
    if (before.length > 0) await db.updateTable('receivables').set({ installment_status: 'C' }).where('source_id', '=', sourceId).where('installment_number', '>', 0).execute();
    return before;
  },

  /** A sale's installments (not its debits) in status `from` move to `to` (a dispute's hold and release). */
  async setInstallmentStatus(db: Executor, sourceId: string, from: 'A' | 'B', to: 'A' | 'B'): Promise<void> {
    await db.updateTable('receivables').set({ installment_status: to }).where('source_id', '=', sourceId).where('installment_number', '>', 0).where('installment_status', '=', from).execute();
  },

  /** A sale's installments (not its debits), locked on PostgreSQL against a concurrent sweep while a refund reduces them. */
  async installmentsOf(db: Executor, sourceId: string, lock: boolean): Promise<ReceivableRow[]> {
    let q = db.selectFrom('receivables').selectAll().where('source_id', '=', sourceId).where('installment_number', '>', 0).orderBy('installment_number');
    if (lock) q = q.forUpdate();
    return q.execute();
  },

  /** An open installment's figures after a refund; false when it was received or cancelled meanwhile. */
  async reduce(db: Executor, id: number, fields: Pick<ReceivableRow, 'installment_value' | 'mdr_value' | 'prepayment_value' | 'received_value'>): Promise<boolean> {
    const r = await db.updateTable('receivables').set(fields).where('id', '=', id).where('received_status', '=', 'A').where('installment_status', '!=', 'C').executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },

  /**
   * The first day after `date` on which the account has an open approved receivable (where a
   * refund's debit is taken), or undefined. One range of receivables_open_idx: receipt_date is
   * expected_date while open, and the status conditions are literals so the planner may use that
   * partial index.
   */
  async nextOpenDate(db: Executor, account: number, date: string): Promise<string | undefined> {
    const row = await db
      .selectFrom('receivables')
      .select('receipt_date')
      .where('account_number', '=', account)
      .where('receipt_date', '>', date)
      .where(sql.ref('received_status'), '=', sql.lit('A'))
      .where(sql.ref('installment_status'), '=', sql.lit('A'))
      .orderBy('receipt_date')
      .limit(1)
      .executeTakeFirst();
    return row?.receipt_date;
  },

  /** Ids of open, approved installments due by `date`, oldest first (the sweep's batches). */
  async dueIds(db: Executor, date: string, limit: number, sourceId?: string): Promise<number[]> {
    let q = db
      .selectFrom('receivables')
      .select('id')
      .where('received_status', '=', 'A')
      .where('expected_date', '<=', date)
      .where('installment_status', '=', 'A');
    if (sourceId !== undefined) q = q.where('source_id', '=', sourceId);
    return (await q.orderBy('id').limit(limit).execute()).map((r) => Number(r.id));
  },

  /** Answers the installments it marked (a concurrent sweep's are skipped, so each is notified once). */
  async markReceived(db: Executor, ids: number[], date: string): Promise<InstallmentChange[]> {
    const rows = await db
      .updateTable('receivables')
      .set({ received_status: 'P', effective_date: date, receipt_date: date })
      .where('id', 'in', ids)
      .where('received_status', '=', 'A')
      .where('installment_status', '=', 'A')
      .returning(INSTALLMENT_CHANGE)
      .execute();
    // RETURNING order is unspecified: notifications follow the sales' own order.
    return rows.sort((a, b) => a.transaction_at.localeCompare(b.transaction_at) || a.nsu.localeCompare(b.nsu) || a.installment_number - b.installment_number);
  },

  /** The card payments some of `ids` belong to. */
  async cardSourcesOf(db: Executor, ids: number[]): Promise<string[]> {
    const rows = await db.selectFrom('receivables').select('source_id').distinct().where('id', 'in', ids).where('source_type', '=', 'card').execute();
    return rows.map((r) => r.source_id);
  },

  /** Card payments among `ids` whose every installment is now received. */
  async fullyReceivedPayments(db: Executor, ids: number[]): Promise<{ source_id: string; merchant_id: string; account_number: number }[]> {
    const sources = db.selectFrom('receivables').select('source_id').where('id', 'in', ids).where('source_type', '=', 'card');
    return db
      .selectFrom('receivables')
      .select(['source_id', 'merchant_id', 'account_number'])
      .where('source_id', 'in', sources)
      .groupBy(['source_id', 'merchant_id', 'account_number'])
      .having(sql<number>`sum(case when received_status = 'P' then 0 else 1 end)`, '=', 0)
      .execute();
  },

  byOperationDate(db: Executor, account: number, start: string, end: string, firstOnly: boolean): Promise<ReceivableRow[]> {
    const [from, to] = dayRange(start, end);
    let q = db.selectFrom('receivables').selectAll().where('account_number', '=', account).where('transaction_at', '>=', from).where('transaction_at', '<', to);
    if (firstOnly) q = q.where('installment_number', '=', 1);
    return q.orderBy('transaction_at').orderBy('installment_number').orderBy('id').execute();
  },

  byReceiptDate(db: Executor, account: number, start: string, end: string): Promise<ReceivableRow[]> {
    return db
      .selectFrom('receivables')
      .selectAll()
      .where('account_number', '=', account)
      .where('receipt_date', '>=', start)
      .where('receipt_date', '<=', end)
      .orderBy('transaction_at')
      .orderBy('installment_number')
      .orderBy('id')
      .execute();
  },

  /**
   * One page of a range search, in the answer order (transaction_at, installment_number, id),
   * after `after` (keyset) or at `offset` (integrators' paging), each row as the array of its
   * columns (INSTALLMENT_COLUMNS, or SUMMARY_COLUMNS for operation-date). Read on the drivers'
   * own handles with a prepared statement: Kysely would build the query (cheap) and an object
   * per row (as costly as the rest of the read). Operation-date ranges are a range scan
   * of the sale-order index (receivables_account_tx_idx on SQLite, which keeps the rowid, our id,
   * at the end of every index entry: already the answer order; receivables_account_tx_receipt_idx
   * on PostgreSQL, migration 0012, with an incremental sort on id within ties). The payment-date
   * range walks the same index, filtering receipt_date (on PostgreSQL on the index entries): a
   * receipt never comes before its sale's date (expected D+0 or later, received or prepaid later
   * still), so the walk stops at the range's end; it starts at the account's first sale, the
   * price of answering in sale order: the index entries of the account's earlier sales are
   * walked and skipped.
   */
  rangePage(
    database: Database,
    kind: RangeKind,
    account: number,
    start: string,
    end: string,
    page: { after?: RangeKey; offset?: number; limit: number },
  ): Promise<ColumnValues[]> {
    const k = page.after;
    const offset = page.offset !== undefined && page.offset > 0;
    const text = pageText(database.dialect, kind, k !== undefined, offset);
    const parameters = [...rangeParams(kind, account, start, end), ...(k ? keyParams(k) : []), page.limit];
    if (offset) parameters.push(page.offset);
    return rowsAsArrays(database, text, parameters);
  },

  /** Where a page's last row puts the keyset of the next. */
  keyOf(kind: RangeKind, row: ColumnValues): RangeKey {
    const at = KEY_POSITIONS[kind === 'operation-date' ? 'summary' : 'installment'];
    return { at: row[at.at], n: row[at.n], id: Number(row[at.id]) };
  },

  byCode(db: Executor, account: number, nsu: string, codAuth?: string): Promise<ReceivableRow[]> {
    let q = db.selectFrom('receivables').selectAll().where('account_number', '=', account).where('nsu', '=', nsu);
    if (codAuth !== undefined) q = q.where('cod_auth', '=', codAuth);
    return q.orderBy('transaction_at').orderBy('installment_number').orderBy('id').execute();
  },

  byAuthCode(
    db: Executor,
    account: number,
    f: { codAuth: string; operationDate: string; value?: bigint; installmentValue?: bigint; installmentNumber?: number },
  ): Promise<ReceivableRow[]> {
    const [from, to] = dayRange(f.operationDate, f.operationDate);
    let q = db
      .selectFrom('receivables')
      .selectAll()
      .where('account_number', '=', account)
      .where('cod_auth', '=', f.codAuth)
      .where('transaction_at', '>=', from)
      .where('transaction_at', '<', to);
    if (f.value !== undefined) q = q.where('transaction_total_value', '=', Number(f.value));
    if (f.installmentValue !== undefined) q = q.where('installment_value', '=', Number(f.installmentValue));
    if (f.installmentNumber !== undefined) q = q.where('installment_number', '=', f.installmentNumber);
    return q.orderBy('transaction_at').orderBy('installment_number').orderBy('id').execute();
  },

  /** Installments of an account picked for prepayment: by (nsu, installment) pairs, or every open one. */
  async forPrepayment(db: Executor, account: number, items: { nsu: string; installmentNumber: number }[] | 'all'): Promise<ReceivableRow[]> {
    let q = db.selectFrom('receivables').selectAll().where('account_number', '=', account);
    if (items === 'all') {
      q = q.where('installment_status', '=', 'A').where('received_status', '=', 'A').where('received_type', '=', 'R');
    } else {
      const nsus = [...new Set(items.map((i) => i.nsu))];
      if (nsus.length === 0) return [];
      q = q.where('nsu', 'in', nsus);
    }
    return q.orderBy('transaction_at').orderBy('installment_number').orderBy('id').execute();
  },

  async anticipate(db: Executor, id: number, fields: { prepayment_value: number; prepayment_tax: number; received_value: number; expected_date: string }): Promise<boolean> {
    const r = await db
      .updateTable('receivables')
      .set({ ...fields, receipt_date: fields.expected_date, received_type: 'A' })
      .where('id', '=', id)
      .where('received_status', '=', 'A')
      .where('received_type', '=', 'R')
      .where('installment_status', '=', 'A')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },
};
