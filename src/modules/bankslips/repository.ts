import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { BankSlipsTable } from '../../db/schema.js';
import { recordNotifications } from '../webhooks/outbox.js';

export type BankSlipRow = Selectable<BankSlipsTable>;
export type BankSlipKey = Pick<BankSlipRow, 'id' | 'merchant_id' | 'account_number'>;

/** statusBill values (seed "States and transitions"). */
export const STATUS = { processing: 1, issued: 2, paid: 3, overdue: 9, failed: 99 } as const;

export type DateColumn = 'due_date' | 'payment_date' | 'credit_date';

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
   * One account's slips whose date column is within [start, end] (inclusive), in that date's
   * order, as a JSON array the database writes (`sqlJsonObject`: one JSON text per row).
   */
  async listJson(
    db: Executor,
    jsonObject: string,
    accountNumber: number,
    column: DateColumn,
    start: string,
    end: string,
    filter: { statusBill?: number; statusIntegration?: number } = {},
  ): Promise<string> {
    let query = db
      .selectFrom('bankslips')
      .select(sql<string>`${sql.raw(jsonObject)}`.as('json'))
      .where('account_number', '=', accountNumber)
      .where(column, '>=', start)
      .where(column, '<=', end);
    if (filter.statusBill !== undefined) query = query.where('status_bill', '=', filter.statusBill);
    if (filter.statusIntegration !== undefined) query = query.where('status_integration', '=', filter.statusIntegration);
    const rows = await query.orderBy(column).orderBy('seq').execute();
    return `[${rows.map((r) => r.json).join(',')}]`;
  },

  /**
   * Moves a slip from statusBill `from` to `to` with the given fields, and writes its event in
   * the same transaction. False when the slip was no longer in `from` (a concurrent change won),
   * so one change never writes two events.
   */
  async transition(
    db: Executor,
    slip: BankSlipKey,
    from: number,
    to: number,
    at: string,
    fields: Updateable<BankSlipsTable> = {},
  ): Promise<boolean> {
    const result = await db
      .updateTable('bankslips')
      .set({ ...fields, status_bill: to, updated_at: at })
      .where('id', '=', slip.id)
      .where('status_bill', '=', from)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await insertEvent(db, slip, from, to, at);
    return true;
  },
};

/** The event row of a statusBill change, and its BankSlipStatus notification (nsu = the slip id, values are statusBill codes). */
export async function insertEvent(db: Executor, slip: BankSlipKey, oldStatus: number | null, newStatus: number, at: string): Promise<void> {
  await db
    .insertInto('bankslip_events')
    .values({ bankslip_id: slip.id, merchant_id: slip.merchant_id, account_number: slip.account_number, old_status_bill: oldStatus, new_status_bill: newStatus, occurred_at: at })
    .execute();
  await recordNotifications(db, [
    {
      merchantId: slip.merchant_id,
      accountNumber: Number(slip.account_number),
      type: 'BankSlipStatus',
      nsu: slip.id,
      codAuth: '',
      installmentNumber: 0,
      oldValue: oldStatus === null ? '' : String(oldStatus),
      newValue: String(newStatus),
      at,
    },
  ]);
}
