import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { PaymentRefundsTable } from '../../db/schema.js';
import { assertTransition } from '../../domain/lifecycles.js';

export type RefundRow = Selectable<PaymentRefundsTable>;

/** The payments module's refunds (table payment_refunds). */
export const refundsRepository = {
  async insert(db: Executor, row: Insertable<PaymentRefundsTable>): Promise<void> {
    await db.insertInto('payment_refunds').values(row).execute();
  },

  find(db: Executor, refundId: string): Promise<RefundRow | undefined> {
    return db.selectFrom('payment_refunds').selectAll().where('refund_id', '=', refundId).executeTakeFirst();
  },

  /** The payment's refund still waiting for the acquirer's answer, if any (at most one: a unique partial index). */
  pendingOf(db: Executor, paymentId: string): Promise<Pick<RefundRow, 'refund_id'> | undefined> {
    return db.selectFrom('payment_refunds').select('refund_id').where('payment_id', '=', paymentId).where('status', '=', 'Pending').executeTakeFirst();
  },

  /** A payment's refunds in the order they were made. */
  listOf(db: Executor, paymentId: string): Promise<RefundRow[]> {
    return db.selectFrom('payment_refunds').selectAll().where('payment_id', '=', paymentId).orderBy('created_at').orderBy('refund_id').execute();
  },

  /**
   * Records the acquirer's answer of a Pending refund. Answers the refund as recorded, or
   * undefined when it was no longer Pending (another writer settled it first: the answer and its
   * effects are written once).
   */
  settle(db: Executor, refundId: string, status: 'Succeeded' | 'Failed', returnMessage: string | null, at: string): Promise<RefundRow | undefined> {
    assertTransition('refunds', 'Pending', status);
    return db
      .updateTable('payment_refunds')
      .set({ status, return_message: returnMessage, updated_at: at })
      .where('refund_id', '=', refundId)
      .where('status', '=', 'Pending')
      .returningAll()
      .executeTakeFirst();
  },
};
