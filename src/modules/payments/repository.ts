import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { PaymentEventsTable, PaymentsTable } from '../../db/schema.js';

export type PaymentRow = Selectable<PaymentsTable>;
/** The acquirer's answer, written with the status it moves a payment to. */
export type TransitionFields = Partial<Pick<PaymentRow, 'return_code' | 'return_message' | 'authorization_code' | 'nsu' | 'acquirer_reference'>>;
/** What a payment's notifications are made of (see webhooks' recordPaymentChange). */
export type PaymentSubject = Pick<PaymentRow, 'payment_id' | 'merchant_id' | 'account_number' | 'nsu' | 'authorization_code' | 'url_callback' | 'amount' | 'reference_transaction'>;

const SUBJECT = ['payment_id', 'merchant_id', 'account_number', 'nsu', 'authorization_code', 'url_callback', 'amount', 'reference_transaction'] as const;

export const paymentsRepository = {
  async insert(db: Executor, row: Insertable<PaymentsTable>): Promise<void> {
    await db.insertInto('payments').values(row).execute();
  },

  /** A merchant's payments with this referenceTransaction (a payment link's), newest first. */
  byReference(db: Executor, merchantId: string, reference: string) {
    return db
      .selectFrom('payments')
      .select(['payment_id', 'status', 'amount', 'installments', 'authorization_code', 'brand', 'masked_card_number'])
      .where('merchant_id', '=', merchantId)
      .where('reference_transaction', '=', reference)
      .orderBy('created_at', 'desc')
      .execute();
  },

  /**
   * A merchant's payment; another merchant's id is simply not found (404, no existence leak).
   * `lock` (PostgreSQL, in a transaction): held until its end, so that two refunds of one payment
   * are decided one after the other.
   */
  async find(db: Executor, paymentId: string, merchantId?: string, options: { lock?: boolean } = {}): Promise<PaymentRow | undefined> {
    let query = db.selectFrom('payments').selectAll().where('payment_id', '=', paymentId);
    if (merchantId !== undefined) query = query.where('merchant_id', '=', merchantId);
    if (options.lock) query = query.forUpdate();
    return query.executeTakeFirst();
  },

  /** Locks payments' rows in id order (a fixed order: two lockers of overlapping sets never deadlock). */
  async lockAll(db: Executor, paymentIds: string[]): Promise<void> {
    await db.selectFrom('payments').select('payment_id').where('payment_id', 'in', paymentIds).orderBy('payment_id').forUpdate().execute();
  },

  /** Sets the payment's open dispute from `from` to `to` (compare-and-set), while its status is one of `statuses`. */
  async setOpenDispute(db: Executor, paymentId: string, from: string | null, to: string | null, statuses: string[]): Promise<boolean> {
    const result = await db
      .updateTable('payments')
      .set({ open_dispute_id: to })
      .where('payment_id', '=', paymentId)
      .where('open_dispute_id', from === null ? 'is' : '=', from)
      .where('status', 'in', statuses)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Clears the payment's open dispute and adds what it charged back; answers the payment as it is now. */
  async closeDispute(db: Executor, paymentId: string, disputeId: string, lostCents: number, at: string): Promise<PaymentRow> {
    return db
      .updateTable('payments')
      .set((eb) => ({ open_dispute_id: null, charged_back_amount: eb('charged_back_amount', '+', lostCents), updated_at: at }))
      .where('payment_id', '=', paymentId)
      .where('open_dispute_id', '=', disputeId)
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  /** Adds a refund the acquirer made to the payment's refunded amount; answers the payment as it is now. */
  async addRefunded(db: Executor, paymentId: string, amount: number, at: string): Promise<PaymentRow> {
    return db
      .updateTable('payments')
      .set((eb) => ({ refunded_amount: eb('refunded_amount', '+', amount), updated_at: at }))
      .where('payment_id', '=', paymentId)
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  /**
   * Claims the right to send a Pending payment's authorization again: compare-and-set on the
   * last send time, so of two concurrent resenders exactly one wins.
   */
  async claimSend(db: Executor, paymentId: string, previousSentAt: string | null, sentAt: string): Promise<boolean> {
    const result = await db
      .updateTable('payments')
      .set({ acquirer_sent_at: sentAt })
      .where('payment_id', '=', paymentId)
      .where('status', '=', 'Pending')
      .where('acquirer_sent_at', previousSentAt === null ? 'is' : '=', previousSentAt)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  /**
   * Moves a payment from `from` to a new status with the given fields. Answers what its
   * notifications need, or undefined when the payment was no longer in `from` (a concurrent
   * change won), so the caller never writes a second event for one change.
   */
  async transition(db: Executor, paymentId: string, from: string, to: string, at: string, fields: TransitionFields = {}): Promise<PaymentSubject | undefined> {
    // RETURNING gives the notification what the caller may not hold (the settlement sweep knows only ids).
    return db
      .updateTable('payments')
      .set({ ...fields, status: to, updated_at: at })
      .where('payment_id', '=', paymentId)
      .where('status', '=', from)
      .returning(SUBJECT)
      .executeTakeFirst();
  },

  /** The event row of a status change (its notifications are the service's). */
  async insertEvent(db: Executor, event: Insertable<PaymentEventsTable>): Promise<void> {
    await db.insertInto('payment_events').values(event).execute();
  },
};
