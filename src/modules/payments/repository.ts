import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { PaymentsTable } from '../../db/schema.js';

export type PaymentRow = Selectable<PaymentsTable>;

export const paymentsRepository = {
  async insert(db: Executor, row: Insertable<PaymentsTable>): Promise<void> {
    await db.insertInto('payments').values(row).execute();
  },

  /** A merchant's payment; another merchant's id is simply not found (404, no existence leak). */
  async find(db: Executor, paymentId: string, merchantId?: string): Promise<PaymentRow | undefined> {
    let query = db.selectFrom('payments').selectAll().where('payment_id', '=', paymentId);
    if (merchantId !== undefined) query = query.where('merchant_id', '=', merchantId);
    return query.executeTakeFirst();
  },

  /**
   * Moves a payment from `from` to a new status with the given fields, and writes its event in
   * the same transaction. Answers false when the payment was no longer in `from` (a concurrent
   * change won), so the caller never writes a second event for one change.
   */
  async transition(
    db: Executor,
    payment: Pick<PaymentRow, 'payment_id' | 'merchant_id' | 'account_number'>,
    from: string,
    to: string,
    at: string,
    fields: Partial<Pick<PaymentRow, 'return_code' | 'return_message' | 'authorization_code' | 'nsu' | 'acquirer_reference'>> = {},
  ): Promise<boolean> {
    const result = await db
      .updateTable('payments')
      .set({ ...fields, status: to, updated_at: at })
      .where('payment_id', '=', payment.payment_id)
      .where('status', '=', from)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    // Pending is internal (the acquirer has not answered yet): the event of a new payment reads '' -> status.
    await insertEvent(db, payment, from === 'Pending' ? '' : from, to, at);
    return true;
  },
};

export async function insertEvent(
  db: Executor,
  payment: Pick<PaymentRow, 'payment_id' | 'merchant_id' | 'account_number'>,
  oldStatus: string,
  newStatus: string,
  at: string,
): Promise<void> {
  await db
    .insertInto('payment_events')
    .values({ payment_id: payment.payment_id, merchant_id: payment.merchant_id, account_number: payment.account_number, old_status: oldStatus, new_status: newStatus, occurred_at: at })
    .execute();
}
