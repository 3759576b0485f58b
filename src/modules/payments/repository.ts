import { sql, type Insertable, type Selectable } from 'kysely';
import type { Database, Executor } from '../../db/connection.js';
import type { PaymentEventsTable, PaymentsTable } from '../../db/schema.js';
import { assertTransition, type PaymentStatus } from '../../domain/lifecycles.js';

export type PaymentRow = Selectable<PaymentsTable>;
export type PaymentEventRow = Selectable<PaymentEventsTable>;
/** The acquirer's answer, written with the status it moves a payment to. */
export type TransitionFields = Partial<Pick<PaymentRow, 'return_code' | 'return_message' | 'authorization_code' | 'nsu' | 'acquirer_reference' | 'decline_category' | 'network_reference' | 'three_ds' | 'threeds_transaction_id' | 'recover_at' | 'acquirer_sent_at'>>;
/** The acquirer's answer fields, all of them (an outcome writes each). */
export type AnswerFields = Required<Pick<TransitionFields, 'return_code' | 'return_message' | 'authorization_code' | 'nsu' | 'acquirer_reference' | 'decline_category' | 'network_reference'>>;
/** What a payment's notifications are made of (see webhooks' recordPaymentChange). */
export type PaymentSubject = Pick<PaymentRow, 'payment_id' | 'merchant_id' | 'account_number' | 'nsu' | 'authorization_code' | 'url_callback' | 'amount' | 'reference_transaction'>;

const SUBJECT = ['payment_id', 'merchant_id', 'account_number', 'nsu', 'authorization_code', 'url_callback', 'amount', 'reference_transaction'] as const;

export const paymentsRepository = {
  async insert(db: Executor, row: Insertable<PaymentsTable>): Promise<void> {
    await db.insertInto('payments').values(row).execute();
  },

  /**
   * A payment settled at its insert (Denied by anti-fraud: never sent) with its event, left for
   * the relay: on PostgreSQL one statement (a data-modifying CTE); on SQLite two, in the
   * caller's transaction or one of their own.
   */
  async insertSettled(database: Database, db: Executor, row: PaymentRow): Promise<void> {
    const event = { payment_id: row.payment_id, merchant_id: row.merchant_id, account_number: row.account_number, old_status: '', new_status: row.status, occurred_at: row.created_at, relayed: 0 };
    if (database.dialect === 'postgres') {
      await db.with('inserted', (q) => q.insertInto('payments').values(row).returning('payment_id')).insertInto('payment_events').columns(['payment_id', 'merchant_id', 'account_number', 'old_status', 'new_status', 'occurred_at', 'relayed'])
        .expression((eb) => eb.selectFrom('inserted').select(['payment_id', sql<string>`${event.merchant_id}`.as('merchant_id'), sql<number>`${event.account_number}`.as('account_number'), sql.lit('').as('old_status'), sql<string>`${event.new_status}`.as('new_status'), sql<string>`${event.occurred_at}`.as('occurred_at'), sql.lit(0).as('relayed')]))
        .execute();
      return;
    }
    const write = async (trx: Executor) => {
      await trx.insertInto('payments').values(row).execute();
      await trx.insertInto('payment_events').values(event).execute();
    };
    await (db.isTransaction ? write(db) : database.db.transaction().execute(write));
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

  /** The payment of a 3DS server's transaction (a challenge's result names only that). */
  findByThreeDsTransaction(db: Executor, transactionId: string): Promise<PaymentRow | undefined> {
    return db.selectFrom('payments').selectAll().where('threeds_transaction_id', '=', transactionId).executeTakeFirst();
  },

  /** Locks payments' rows in id order (a fixed order: two lockers of overlapping sets never deadlock). */
  async lockAll(db: Executor, paymentIds: string[]): Promise<void> {
    await db.selectFrom('payments').select('payment_id').where('payment_id', 'in', paymentIds).orderBy('payment_id').forUpdate().execute();
  },

  /** Sets the payment's open dispute from `from` to `to` (compare-and-set), while its status is one of `statuses`. */
  async setOpenDispute(db: Executor, paymentId: string, from: string | null, to: string | null, statuses: readonly PaymentStatus[]): Promise<boolean> {
    const result = await db
      .updateTable('payments')
      .set({ open_dispute_id: to })
      .where('payment_id', '=', paymentId)
      .where('open_dispute_id', from === null ? 'is' : '=', from)
      .where('status', 'in', [...statuses])
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
   * change won), so the caller never writes a second event for one change. A move the payments
   * table does not have is IllegalTransition, before any statement.
   */
  async transition(db: Executor, paymentId: string, from: PaymentStatus, to: PaymentStatus, at: string, fields: TransitionFields = {}): Promise<PaymentSubject | undefined> {
    assertTransition('payments', from, to);
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

  /**
   * A batch's Pending payments in one statement. A payment id already taken (a twin run of the
   * same billing wrote it first) is skipped, not failed: answers the ids inserted.
   */
  async insertMany(db: Executor, rows: Insertable<PaymentsTable>[]): Promise<Set<string>> {
    if (rows.length === 0) return new Set();
    const inserted = await db.insertInto('payments').values(rows).onConflict((oc) => oc.column('payment_id').doNothing()).returning('payment_id').execute();
    return new Set(inserted.map((r) => r.payment_id));
  },

  /**
   * Records the acquirer's answers of Pending payments, each with its event left for the relay
   * (`relayed` 0). PostgreSQL: one statement, a data-modifying CTE over the answers as a VALUES
   * list, so the changes and their events commit together without a BEGIN and a COMMIT of their
   * own; SQLite (statements are calls in this process, commits are grouped) runs them in one
   * transaction. Answers the ids moved out of Pending: one missing lost a race (no longer
   * Pending), and no event was written for a change not made.
   */
  async recordOutcomes(database: Database, outcomes: readonly { paymentId: string; to: PaymentStatus; fields: AnswerFields }[], at: string): Promise<Set<string>> {
    if (outcomes.length === 0) return new Set();
    // Checked in memory: the hot path gains no statement.
    for (const { to } of outcomes) assertTransition('payments', 'Pending', to);
    if (database.dialect === 'postgres') {
      const values = sql.join(
        outcomes.map(({ paymentId, to, fields: f }) => sql`(${paymentId}::text, ${to}::text, ${f.return_code}::text, ${f.return_message}::text, ${f.authorization_code}::text, ${f.nsu}::text, ${f.acquirer_reference}::text, ${f.decline_category}::text, ${f.network_reference}::text)`),
      );
      const { rows } = await sql<{ payment_id: string }>`
        with answers (payment_id, status, return_code, return_message, authorization_code, nsu, acquirer_reference, decline_category, network_reference) as (values ${values}),
        moved as (
          update payments p set status = a.status, return_code = a.return_code, return_message = a.return_message,
            authorization_code = a.authorization_code, nsu = a.nsu, acquirer_reference = a.acquirer_reference,
            decline_category = a.decline_category, network_reference = a.network_reference, updated_at = ${at}
          from answers a where p.payment_id = a.payment_id and p.status = 'Pending'
          returning p.payment_id, p.merchant_id, p.account_number, p.status)
        insert into payment_events (payment_id, merchant_id, account_number, old_status, new_status, occurred_at, relayed)
        select payment_id, merchant_id, account_number, '', status, ${at}, 0 from moved
        returning payment_id`.execute(database.db);
      return new Set(rows.map((r) => r.payment_id));
    }
    return database.db.transaction().execute(async (trx) => {
      const moved = new Set<string>();
      for (const { paymentId, to, fields } of outcomes) {
        const row = await trx.updateTable('payments').set({ ...fields, status: to, updated_at: at }).where('payment_id', '=', paymentId).where('status', '=', 'Pending').returning(['merchant_id', 'account_number']).executeTakeFirst();
        if (!row) continue;
        await trx.insertInto('payment_events').values({ payment_id: paymentId, ...row, old_status: '', new_status: to, occurred_at: at, relayed: 0 }).execute();
        moved.add(paymentId);
      }
      return moved;
    });
  },

  /**
   * A 3-D Secure step of a payment (compare-and-set from `from`) with its event, in one
   * transaction: `event` names the event's status (`Authenticated` for an authentication that
   * leaves the payment Pending for the acquirer); Pending is internal, an event from it reads as
   * from '' (a new payment's first event). False when the payment was no longer `from`:
   * nothing is written.
   */
  async changeWithEvent(database: Database, paymentId: string, from: PaymentStatus, to: PaymentStatus, at: string, fields: TransitionFields, event: string = to): Promise<boolean> {
    // Pending -> Pending records a 3-D Secure step without a change of status (not a move).
    if (from !== to) assertTransition('payments', from, to);
    return database.db.transaction().execute(async (trx) => {
      const moved = await trx.updateTable('payments').set({ ...fields, status: to, updated_at: at }).where('payment_id', '=', paymentId).where('status', '=', from).returning(['merchant_id', 'account_number']).executeTakeFirst();
      if (moved) await trx.insertInto('payment_events').values({ payment_id: paymentId, ...moved, old_status: from === 'Pending' ? '' : from, new_status: event, occurred_at: at, relayed: 0 }).execute();
      return moved !== undefined;
    });
  },

  /** Claims payments whose 3-D Secure challenge is past its deadline (`recover_at`, business time), leasing them as claimRecoveries does. */
  async claimExpiredChallenges(db: Executor, dialect: Database['dialect'], dueBy: string, leaseUntil: string, limit: number): Promise<string[]> {
    let pick = db.selectFrom('payments').select('payment_id').where('status', '=', 'PendingAuthentication').where('recover_at', '<=', dueBy).orderBy('recover_at').limit(limit);
    if (dialect === 'postgres') pick = pick.forUpdate().skipLocked();
    const rows = await db.updateTable('payments').set({ recover_at: leaseUntil }).where('payment_id', 'in', pick).where('status', '=', 'PendingAuthentication').returning('payment_id').execute();
    return rows.map((r) => r.payment_id);
  },

  /**
   * Claims events still to relay, oldest first, marking them relayed in the caller's
   * transaction. `paymentIds`: only theirs, waiting for a relayer that holds one (a later change
   * of those payments must follow their effects); otherwise any, skipping rows another relayer
   * holds (PostgreSQL; SQLite has one writer).
   */
  async claimUnrelayed(trx: Executor, dialect: Database['dialect'], limit: number, paymentIds?: string[]): Promise<PaymentEventRow[]> {
    let pick = trx.selectFrom('payment_events').select('id').where('relayed', '=', 0);
    if (paymentIds) pick = pick.where('payment_id', 'in', paymentIds);
    pick = pick.orderBy('id').limit(limit);
    if (dialect === 'postgres') pick = paymentIds ? pick.forUpdate() : pick.forUpdate().skipLocked();
    const rows = await trx.updateTable('payment_events').set({ relayed: 1 }).where('id', 'in', pick).returningAll().execute();
    return rows.sort((a, b) => Number(a.id) - Number(b.id));
  },

  /** The payments of these ids (the relay's batch). */
  findAll(db: Executor, paymentIds: string[]): Promise<PaymentRow[]> {
    return db.selectFrom('payments').selectAll().where('payment_id', 'in', paymentIds).execute();
  },

  /**
   * Claims Pending payments whose recovery is due (`recover_at` <= `dueBy`, business time),
   * moving each one's `recover_at` to `leaseUntil` so another sweeper leaves it alone while this
   * one asks the acquirer; the sweeper then sets the real next time or settles the payment.
   */
  async claimRecoveries(db: Executor, dialect: Database['dialect'], dueBy: string, leaseUntil: string, limit: number): Promise<string[]> {
    let pick = db.selectFrom('payments').select('payment_id').where('status', '=', 'Pending').where('recover_at', '<=', dueBy).orderBy('recover_at').limit(limit);
    if (dialect === 'postgres') pick = pick.forUpdate().skipLocked();
    const rows = await db.updateTable('payments').set({ recover_at: leaseUntil }).where('payment_id', 'in', pick).where('status', '=', 'Pending').returning('payment_id').execute();
    return rows.map((r) => r.payment_id);
  },

  /** When a Pending payment's recovery is next due. */
  async setRecoverAt(db: Executor, paymentId: string, at: string): Promise<void> {
    await db.updateTable('payments').set({ recover_at: at }).where('payment_id', '=', paymentId).where('status', '=', 'Pending').execute();
  },

  /** The oldest Pending payment and the events still to relay (both through partial indexes: the rows are the backlog itself). */
  async backlog(db: Executor): Promise<{ oldestPendingAt: string | null; unrelayed: number }> {
    const row = await db
      .selectNoFrom((eb) => [
        eb.selectFrom('payments').select((q) => q.fn.min('created_at').as('v')).where('status', '=', 'Pending').as('oldest'),
        eb.selectFrom('payment_events').select((q) => q.fn.countAll().as('v')).where('relayed', '=', 0).as('unrelayed'),
      ])
      .executeTakeFirstOrThrow();
    return { oldestPendingAt: (row.oldest as string | null) ?? null, unrelayed: Number(row.unrelayed ?? 0) };
  },
};
