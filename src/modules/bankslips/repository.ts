import { sql, type Insertable, type Updateable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import { arrayRows } from '../../db/pg-rows.js';
import type pg from 'pg';
import type { ListColumns } from './list-columns.js';
import type { BankSlipEventsTable, BankSlipsTable } from '../../db/schema.js';
import { assertTransition, type BankSlipStatus } from '../../domain/lifecycles.js';
import { INTEGRATION, STATUS, type BankSlipKey, type BankSlipRow } from './row.js';

/**
 * A listing's window, filters and, when resuming, keyset, as SQL text for the driver's own
 * handle (rows as arrays on PostgreSQL): the same conditions as
 * listJsonPage's query. The column is ours; every value is a parameter, in `parameters`.
 */
function listWhere(dialect: 'sqlite' | 'postgres', accountNumber: number, column: DateColumn, range: ListRange, after?: ListCursor): { where: string; parameters: unknown[] } {
  const parameters: unknown[] = [];
  const p = (value: unknown) => (parameters.push(value), dialect === 'postgres' ? `$${parameters.length}` : '?');
  let where = `account_number = ${p(accountNumber)} and ${column} >= ${p(after ? after.date : range.start)} and ${column} <= ${p(range.end)}`;
  if (after) where += ` and (${column}, seq) > (${p(after.date)}, ${p(after.seq)})`;
  if (range.statusBill !== undefined) where += ` and status_bill = ${p(range.statusBill)}`;
  if (range.statusIntegration !== undefined) where += ` and status_integration = ${p(range.statusIntegration)}`;
  return { where, parameters };
}

export type DateColumn = 'due_date' | 'payment_date' | 'credit_date';

/** A listing's window (bounds included) and filters. */
export interface ListRange {
  start: string;
  end: string;
  statusBill?: BankSlipStatus;
  statusIntegration?: number;
}

/** Where a listing page ends: the (date, seq) of its last row. */
export interface ListCursor {
  date: string;
  seq: number;
}

export interface ListPageRow extends ListCursor {
  json: string;
}

export const bankSlipsRepository = {
  async insert(db: Executor, row: Insertable<BankSlipsTable>): Promise<BankSlipRow> {
    return db.insertInto('bankslips').values(row).returningAll().executeTakeFirstOrThrow();
  },

  /** A merchant's slip; another merchant's id is simply not found (404, no existence leak). */
  async find(db: Executor, id: string, merchantId?: string): Promise<BankSlipRow | undefined> {
    let query = db.selectFrom('bankslips').selectAll().where('id', '=', id);
    if (merchantId !== undefined) query = query.where('merchant_id', '=', merchantId);
    return query.executeTakeFirst();
  },

  /**
   * One page of an account's slips whose date column is within [start, end] (inclusive), in the
   * order (date, seq), each as the JSON text the database writes (`sqlJsonObject`). `after` is
   * the last row of the previous page (keyset paging: every page is a range scan of the
   * (account_number, date, seq) index from where the previous one stopped, never an offset; on
   * SQLite seq is the rowid every index ends with, on PostgreSQL migration 0009 appends it).
   */
  async listJsonPage(
    db: Executor,
    jsonObject: string,
    accountNumber: number,
    column: DateColumn,
    range: ListRange,
    limit: number,
    after?: ListCursor,
  ): Promise<ListPageRow[]> {
    let query = db
      .selectFrom('bankslips')
      .select([sql<string>`${sql.raw(jsonObject)}`.as('json'), sql<string>`${sql.ref(column)}`.as('date'), 'seq'])
      .where('account_number', '=', accountNumber)
      .where(column, '>=', after ? after.date : range.start)
      .where(column, '<=', range.end);
    // The row value comparison keeps the index range on the date; seq breaks ties within a date.
    if (after) query = query.where((eb) => eb(eb.refTuple(column, 'seq'), '>', eb.tuple(after.date, after.seq)));
    if (range.statusBill !== undefined) query = query.where('status_bill', '=', range.statusBill);
    if (range.statusIntegration !== undefined) query = query.where('status_integration', '=', range.statusIntegration);
    return query.orderBy(column).orderBy('seq').limit(limit).execute();
  },

  /**
   * The same page on PostgreSQL as rows of columns (src/db/pg-rows.ts), made JSON by the
   * caller (list-columns.ts): the same rows, order and keyset as listJsonPage.
   */
  async listColumnsPage(pool: pg.Pool, shape: ListColumns, accountNumber: number, column: DateColumn, range: ListRange, limit: number, after?: ListCursor): Promise<unknown[][]> {
    const { where, parameters } = listWhere('postgres', accountNumber, column, range, after);
    parameters.push(limit);
    const text = `select ${shape.columns.join(', ')} from bankslips where ${where} order by ${column}, seq limit $${parameters.length}`;
    return arrayRows(pool, text, parameters);
  },

  /**
   * Moves a slip from statusBill `from` to `to` with the given fields. False when the slip was
   * no longer in `from` (a concurrent change won). Its event is the caller's (slip-events.ts),
   * written only for a change made, so one change never writes two events. A move the bank
   * slips table does not have is IllegalTransition; `to` = `from` writes fields only.
   */
  async transition(db: Executor, slipId: string, from: BankSlipStatus, to: BankSlipStatus, at: string, fields: Updateable<BankSlipsTable> = {}): Promise<boolean> {
    if (from !== to) assertTransition('bankSlips', from, to);
    const result = await db
      .updateTable('bankslips')
      .set({ ...fields, status_bill: to, updated_at: at })
      .where('id', '=', slipId)
      .where('status_bill', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /**
   * Marks an uncancelled slip in statusBill `from` cancelled (moving it to `to`). False when a
   * concurrent change won (a payment, the overdue job, the bank's write-off).
   */
  async cancel(db: Executor, slipId: string, from: BankSlipStatus, to: BankSlipStatus, at: string, fields: Updateable<BankSlipsTable>): Promise<boolean> {
    if (from !== to) assertTransition('bankSlips', from, to);
    const result = await db
      .updateTable('bankslips')
      .set({ ...fields, status_bill: to, updated_at: at })
      .where('id', '=', slipId)
      .where('status_bill', '=', from)
      .where('canceled_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Slips by our number (a return file's records); at most a few hundred per call. */
  async findByOurNumbers(db: Executor, ourNumbers: string[]): Promise<BankSlipRow[]> {
    if (ourNumbers.length === 0) return [];
    return db.selectFrom('bankslips').selectAll().where('our_number', 'in', ourNumbers).execute();
  },

  /**
   * A day's remittance: the slips issued that day that have a barcode (a slip still
   * registering, or failed, has nothing the bank could register), and the slips a merchant
   * cancelled that day (a write-off the bank reported itself is not sent back; a slip cancelled
   * before registration was never sent, so it has no write-off either). In seq order.
   */
  async forRemittance(db: Executor, date: string, nextDate: string): Promise<{ issued: BankSlipRow[]; cancelled: BankSlipRow[] }> {
    const issued = await db.selectFrom('bankslips').selectAll().where('issue_date', '=', date).where('bar_code', 'is not', null).orderBy('seq').execute();
    const cancelled = await db
      .selectFrom('bankslips')
      .selectAll()
      .where('canceled_at', '>=', date)
      .where('canceled_at', '<', nextDate)
      .where('canceled_by', '=', 'merchant')
      .where('bar_code', 'is not', null)
      .orderBy('seq')
      .execute();
    return { issued, cancelled };
  },

  /**
   * Sandbox return file of a day: the slips registered that day (unless the bank has rejected
   * them since), and the slips whose payment was recorded that day, by the time of its event,
   * never by the payment date a payment recorded later may carry (a past day's file stays as it
   * was). Moments are ISO texts, so `[date, nextDate)` is the day.
   */
  async forSandboxReturn(db: Executor, date: string, nextDate: string): Promise<{ registered: BankSlipRow[]; paid: BankSlipRow[]; writtenOff: BankSlipRow[] }> {
    const registered = await db
      .selectFrom('bankslips')
      .selectAll()
      .where('registered_at', '>=', date)
      .where('registered_at', '<', nextDate)
      .where('bar_code', 'is not', null)
      .where('status_integration', '!=', INTEGRATION.rejected)
      .orderBy('seq')
      .execute();
    const paid = await db
      .selectFrom('bankslips')
      .innerJoin('bankslip_events as e', 'e.bankslip_id', 'bankslips.id')
      .selectAll('bankslips')
      .where('e.new_status_bill', '=', STATUS.paid)
      .where('e.occurred_at', '>=', date)
      .where('e.occurred_at', '<', nextDate)
      .orderBy('bankslips.seq')
      .execute();
    // The merchant's write-off requests of the day (movement 02 in its remittance), confirmed.
    const writtenOff = await db
      .selectFrom('bankslips')
      .selectAll()
      .where('canceled_by', '=', 'merchant')
      .where('canceled_at', '>=', date)
      .where('canceled_at', '<', nextDate)
      .where('bar_code', 'is not', null)
      .orderBy('seq')
      .execute();
    return { registered, paid, writtenOff };
  },

  /** The event row of a statusBill change (its notification is the service's). */
  async insertEvent(db: Executor, event: Insertable<BankSlipEventsTable>): Promise<void> {
    await db.insertInto('bankslip_events').values(event).execute();
  },
};
