import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { PixRefundsTable } from '../../db/schema.js';

export type PixRefundRow = Selectable<PixRefundsTable>;

/** The pix module's refunds (table pix_refunds). */
export const pixRefundsRepository = {
  async insert(db: Executor, row: Insertable<PixRefundsTable>): Promise<void> {
    await db.insertInto('pix_refunds').values(row).execute();
  },

  /** Inserts a refund unless its id is taken (a report seen again): answers whether it did. */
  async insertOnce(db: Executor, row: Insertable<PixRefundsTable>): Promise<boolean> {
    const inserted = await db.insertInto('pix_refunds').values(row).onConflict((oc) => oc.column('refund_id').doNothing()).executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
  },

  find(db: Executor, refundId: string, lock = false): Promise<PixRefundRow | undefined> {
    let query = db.selectFrom('pix_refunds').selectAll().where('refund_id', '=', refundId);
    if (lock) query = query.forUpdate();
    return query.executeTakeFirst();
  },

  /** A charge's refunds in the order they were made. */
  listOf(db: Executor, chargeId: string): Promise<PixRefundRow[]> {
    return db.selectFrom('pix_refunds').selectAll().where('charge_id', '=', chargeId).orderBy('created_at').orderBy('refund_id').execute();
  },

  /** Cents of the charge's refunds sent whose outcome is not known yet. */
  async inProcessOf(db: Executor, chargeId: string): Promise<bigint> {
    const row = await db.selectFrom('pix_refunds').select((eb) => eb.fn.sum<string | number | null>('amount').as('total')).where('charge_id', '=', chargeId).where('status', '=', 'InProcess').executeTakeFirst();
    return BigInt(row?.total ?? 0);
  },

  /**
   * Moves a refund from `from` to its final status. Answers the refund as recorded, or
   * undefined when it was no longer in `from` (another writer settled it first: the outcome and
   * its effects are written once).
   */
  settle(db: Executor, refundId: string, from: PixRefundRow['status'], status: 'Returned' | 'NotDone', reason: string | null, at: string): Promise<PixRefundRow | undefined> {
    return db
      .updateTable('pix_refunds')
      .set({ status, status_reason: reason, updated_at: at })
      .where('refund_id', '=', refundId)
      .where('status', '=', from)
      .returningAll()
      .executeTakeFirst();
  },

  /** Adds (or, negative, takes back) returned cents to the charge; answers its new total. */
  async addRefunded(db: Executor, chargeId: string, cents: number): Promise<number> {
    const row = await db
      .updateTable('pix_charges')
      .set((eb) => ({ refunded_amount: eb('refunded_amount', '+', cents) }))
      .where('id', '=', chargeId)
      .returning('refunded_amount')
      .executeTakeFirstOrThrow();
    return Number(row.refunded_amount);
  },
};
