import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { PaymentsTable } from '../../db/schema.js';
import { recordPaymentChange, type PaymentSubject } from '../webhooks/outbox.js';

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
   * Moves a payment from `from` to a new status with the given fields, and writes its event (and
   * its notifications) in the same transaction. Answers false when the payment was no longer in
   * `from` (a concurrent change won), so the caller never writes a second event for one change.
   */
  async transition(
    db: Executor,
    payment: Pick<PaymentRow, 'payment_id' | 'merchant_id' | 'account_number'>,
    from: string,
    to: string,
    at: string,
    fields: Partial<Pick<PaymentRow, 'return_code' | 'return_message' | 'authorization_code' | 'nsu' | 'acquirer_reference'>> = {},
  ): Promise<boolean> {
    // RETURNING gives the notification what the caller may not hold (the settlement sweep knows only ids).
    const moved = await db
      .updateTable('payments')
      .set({ ...fields, status: to, updated_at: at })
      .where('payment_id', '=', payment.payment_id)
      .where('status', '=', from)
      .returning(['payment_id', 'merchant_id', 'account_number', 'nsu', 'authorization_code', 'url_callback', 'amount', 'reference_transaction'])
      .executeTakeFirst();
    if (!moved) return false;
    // Pending is internal (the acquirer has not answered yet): the event of a new payment reads '' -> status.
    await insertEvent(db, moved, from === 'Pending' ? '' : from, to, at);
    return true;
  },
};

/** The event row of a status change, and the webhook and callback notifications it makes. */
export async function insertEvent(db: Executor, payment: PaymentSubject, oldStatus: string, newStatus: string, at: string): Promise<void> {
  await db
    .insertInto('payment_events')
    .values({ payment_id: payment.payment_id, merchant_id: payment.merchant_id, account_number: payment.account_number, old_status: oldStatus, new_status: newStatus, occurred_at: at })
    .execute();
  await recordPaymentChange(db, payment, oldStatus, newStatus, at);
}
