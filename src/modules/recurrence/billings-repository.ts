import type { Executor } from '../../db/connection.js';
import type { Paging } from '../../http/listing.js';
import type { BillingRow } from './views.js';

export type BillingSortColumn = keyof BillingRow;
export interface BillingFilter {
  merchantId: string;
  status?: string;
  /** Inclusive lower bound of expire_at (ISO instant). */
  expireFrom?: string;
  /** Exclusive upper bound of expire_at (ISO instant). */
  expireBefore?: string;
}

/** A billing with what its charge needs from its subscription and plan, in one read. */
export interface ChargeState extends BillingRow {
  sub_status: string;
  vault_id: string;
  account_number: number;
  plan_id: string;
  plan_attempts: number;
  plan_installments: number | null;
  interval_days: number;
  plan_amount: number;
  /** CreditCard or Pix: which engine charges it. */
  plan_payment_method: string;
}

/** What a cascade's cancelled billing gives its event. */
const CANCELED_FIELDS = ['billing_id', 'merchant_id', 'subscription_id', 'installment', 'amount', 'expire_at'] as const;
export type CanceledBilling = Pick<BillingRow, (typeof CANCELED_FIELDS)[number]>;

export interface Modification {
  by: string;
  at: string;
}

export const billingsRepository = {
  /** Inserts billing n of a subscription unless it exists already: true when this call made it. */
  async insertIfAbsent(db: Executor, row: BillingRow): Promise<boolean> {
    const inserted = await db
      .insertInto('billings')
      .values(row)
      // DO NOTHING (not an error) keeps the caller's PostgreSQL transaction usable.
      .onConflict((oc) => oc.columns(['subscription_id', 'installment']).doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
  },

  async find(db: Executor, merchantId: string, billingId: string): Promise<BillingRow | undefined> {
    return db.selectFrom('billings').selectAll().where('billing_id', '=', billingId).where('merchant_id', '=', merchantId).executeTakeFirst();
  },

  async list(db: Executor, filter: BillingFilter, paging: Paging<BillingSortColumn>): Promise<{ rows: BillingRow[]; total: number }> {
    let query = db.selectFrom('billings').where('merchant_id', '=', filter.merchantId);
    if (filter.status) query = query.where('status', '=', filter.status);
    if (filter.expireFrom) query = query.where('expire_at', '>=', filter.expireFrom);
    if (filter.expireBefore) query = query.where('expire_at', '<', filter.expireBefore);
    const rows = await query
      .selectAll()
      .orderBy(paging.orderColumn, paging.direction)
      .orderBy('billing_id', paging.direction)
      .limit(paging.limit)
      .offset(paging.offset)
      .execute();
    const { total } = await query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
    return { rows, total: Number(total) };
  },

  /** A subscription's billings, the latest first (the (subscription_id, installment) unique index). */
  async ofSubscription(db: Executor, merchantId: string, subscriptionId: string, limit: number): Promise<BillingRow[]> {
    return db
      .selectFrom('billings')
      .selectAll()
      .where('subscription_id', '=', subscriptionId)
      .where('merchant_id', '=', merchantId)
      .orderBy('installment', 'desc')
      .limit(limit)
      .execute();
  },

  async loadForCharge(db: Executor, billingId: string): Promise<ChargeState | undefined> {
    return db
      .selectFrom('billings as b')
      .innerJoin('subscriptions as s', 's.subscription_id', 'b.subscription_id')
      .innerJoin('plans as p', 'p.plan_id', 's.plan_id')
      .selectAll('b')
      .select([
        's.status as sub_status',
        's.vault_id',
        's.account_number',
        's.plan_id',
        'p.attempts as plan_attempts',
        'p.installments as plan_installments',
        'p.interval_days',
        'p.amount as plan_amount',
        'p.payment_method as plan_payment_method',
      ])
      .where('b.billing_id', '=', billingId)
      .executeTakeFirst();
  },

  /**
   * Claims charge attempt `attempt` (0 = the first charge at D) of an Opened billing whose
   * subscription is Active: bumps attempts_made and records the payment id the attempt will
   * use, in one conditional UPDATE committed before the payment is made. Exactly one caller
   * wins a given attempt (two workers, a duplicate job); a Canceled billing or a subscription
   * that stopped meanwhile is not claimed, so it is never charged.
   */
  async claim(db: Executor, billingId: string, attempt: number, paymentId: string, at: string): Promise<boolean> {
    const result = await db
      .updateTable('billings')
      .set({ attempts_made: attempt + 1, charging_payment_id: paymentId, next_attempt_at: null, modified_by: SYSTEM, modified_at: at })
      .where('billing_id', '=', billingId)
      .where('status', '=', 'Opened')
      .where('attempts_made', '=', attempt)
      .where('charging_payment_id', 'is', null)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('subscriptions')
            .select('subscription_id')
            .whereRef('subscriptions.subscription_id', '=', 'billings.subscription_id')
            .where('subscriptions.status', '=', 'Active'),
        ),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /**
   * Records the outcome of the claimed attempt. Fenced by the attempt count and its payment id,
   * so only the holder of that claim records it, once.
   */
  async record(
    db: Executor,
    claim: { billingId: string; attempt: number; paymentId: string },
    fields: Pick<BillingRow, 'status' | 'next_attempt_at' | 'attempts_history'>,
    at: string,
  ): Promise<boolean> {
    const result = await db
      .updateTable('billings')
      .set({ ...fields, charging_payment_id: null, modified_by: SYSTEM, modified_at: at })
      .where('billing_id', '=', claim.billingId)
      .where('status', '=', 'Opened')
      .where('attempts_made', '=', claim.attempt + 1)
      .where('charging_payment_id', '=', claim.paymentId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /**
   * Opened -> Canceled for one billing, unless an attempt is in flight (its outcome is about to
   * be recorded; cancelling under it would hide a charge that happened).
   */
  async cancelOpened(db: Executor, billingId: string, m: Modification): Promise<boolean> {
    const result = await db
      .updateTable('billings')
      .set({ status: 'Canceled', next_attempt_at: null, modified_by: m.by, modified_at: m.at })
      .where('billing_id', '=', billingId)
      .where('status', '=', 'Opened')
      .where('charging_payment_id', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Cascade of a subscription cancel: its Opened billings not in flight (answered, for their events). */
  cancelOpenedOfSubscription(db: Executor, subscriptionId: string, m: Modification): Promise<CanceledBilling[]> {
    return db
      .updateTable('billings')
      .set({ status: 'Canceled', next_attempt_at: null, modified_by: m.by, modified_at: m.at })
      .where('subscription_id', '=', subscriptionId)
      .where('status', '=', 'Opened')
      .where('charging_payment_id', 'is', null)
      .returning(CANCELED_FIELDS)
      .execute();
  },

  /** Cascade of a plan cancel: the Opened billings of its live subscriptions, one statement. */
  cancelOpenedOfPlan(db: Executor, planId: string, m: Modification): Promise<CanceledBilling[]> {
    return db
      .updateTable('billings')
      .set({ status: 'Canceled', next_attempt_at: null, modified_by: m.by, modified_at: m.at })
      .where('status', '=', 'Opened')
      .where('charging_payment_id', 'is', null)
      .where('subscription_id', 'in', (eb) =>
        eb.selectFrom('subscriptions').select('subscription_id').where('plan_id', '=', planId).where('status', 'in', ['Active', 'Blocked', 'PendingAuthorization']),
      )
      .returning(CANCELED_FIELDS)
      .execute();
  },

  /**
   * A Pix billing's outcome (its charge is settled by the PSP, not claimed by a worker): fenced by
   * the status Opened and the count of attempts read, so a repeated report records nothing twice.
   */
  async recordPix(db: Executor, billingId: string, attemptsRead: number, fields: Pick<BillingRow, 'status' | 'next_attempt_at' | 'attempts_history' | 'attempts_made'>, at: string): Promise<boolean> {
    const result = await db
      .updateTable('billings')
      .set({ ...fields, modified_by: SYSTEM, modified_at: at })
      .where('billing_id', '=', billingId)
      .where('status', '=', 'Opened')
      .where('attempts_made', '=', attemptsRead)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** A subscription's billing n (Pix: billing 1 is paid with the authorization). */
  installmentOf(db: Executor, subscriptionId: string, installment: number): Promise<BillingRow | undefined> {
    return db.selectFrom('billings').selectAll().where('subscription_id', '=', subscriptionId).where('installment', '=', installment).executeTakeFirst();
  },

  /** Number of the subscription's last billing (they are numbered 1, 2, ...), 0 when none. */
  async lastInstallment(db: Executor, subscriptionId: string): Promise<number> {
    const row = await db
      .selectFrom('billings')
      .select((eb) => eb.fn.max('installment').as('last'))
      .where('subscription_id', '=', subscriptionId)
      .executeTakeFirst();
    return Number(row?.last ?? 0);
  },

  async hasOpened(db: Executor, subscriptionId: string): Promise<boolean> {
    const row = await db
      .selectFrom('billings')
      .select('billing_id')
      .where('subscription_id', '=', subscriptionId)
      .where('status', '=', 'Opened')
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  },
};

/** modifiedBy / createdBy of what the engine does on its own. */
export const SYSTEM = 'system';
