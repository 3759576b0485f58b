import type { Executor } from '../../db/connection.js';
import { prepared } from '../../db/prepared.js';
import { allColumns } from '../../db/columns.js';
import type { BillingsTable } from '../../db/schema.js';
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
}

/** What a cascade's cancelled billing gives its event. */
const CANCELED_FIELDS = ['billing_id', 'merchant_id', 'subscription_id', 'installment', 'amount', 'expire_at'] as const;
export type CanceledBilling = Pick<BillingRow, (typeof CANCELED_FIELDS)[number]>;

export interface Modification {
  by: string;
  at: string;
}

export const billingsRepository = {
  /**
   * Inserts billing n of a subscription unless it exists already: true when this call made it.
   * `claimHeld`: for a caller whose transaction holds the claim on billing n - 1, so that no one
   * else can have issued billing n; the insert goes out with the next statement (PostgreSQL) and
   * is answered true without reading its count.
   */
  async insertIfAbsent(db: Executor, row: BillingRow, options: { claimHeld?: boolean } = {}): Promise<boolean> {
    if (options.claimHeld) {
      await insertBillingHeld.execute(db, row);
      return true;
    }
    const inserted = await insertBilling.execute(db, row);
    return Number(inserted.numAffectedRows ?? 0n) === 1;
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
    return loadForCharge.first(db, { billingId });
  },

  /**
   * Claims charge attempt `attempt` (0 = the first charge at D) of an Opened billing whose
   * subscription is Active: bumps attempts_made and records the payment id the attempt will
   * use, in one conditional UPDATE committed before the payment is made. Exactly one caller
   * wins a given attempt (two workers, a duplicate job); a Canceled billing or a subscription
   * that stopped meanwhile is not claimed, so it is never charged.
   */
  async claim(db: Executor, billingId: string, attempt: number, paymentId: string, at: string): Promise<boolean> {
    const result = await claimAttempt.execute(db, { billingId, attempt, attempts: attempt + 1, paymentId, at, by: SYSTEM });
    return Number(result.numAffectedRows) === 1;
  },

  /**
   * Records the outcome of the claimed attempt. Fenced by the attempt count and its payment id,
   * so only the holder of that claim records it, once. `claimHeld`: the caller's transaction made
   * the claim, so the fence holds; the update goes out with the next statement (PostgreSQL).
   */
  async record(
    db: Executor,
    claim: { billingId: string; attempt: number; paymentId: string },
    fields: Pick<BillingRow, 'status' | 'next_attempt_at' | 'attempts_history'>,
    at: string,
    options: { claimHeld?: boolean } = {},
  ): Promise<boolean> {
    // A null next_attempt_at cannot fill a prepared slot (a marker stands for a value): the
    // two shapes are two statements.
    const values = { billingId: claim.billingId, attempts: claim.attempt + 1, paymentId: claim.paymentId, status: fields.status, history: fields.attempts_history, by: SYSTEM, at };
    if (options.claimHeld) {
      // The claim was made in this same transaction: the row is held and matches the fence.
      await (fields.next_attempt_at === null ? recordEndHeld.execute(db, values) : recordRetryHeld.execute(db, { ...values, next: fields.next_attempt_at }));
      return true;
    }
    const result = fields.next_attempt_at === null ? await recordEnd.execute(db, values) : await recordRetry.execute(db, { ...values, next: fields.next_attempt_at });
    return Number(result.numAffectedRows) === 1;
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
        eb.selectFrom('subscriptions').select('subscription_id').where('plan_id', '=', planId).where('status', 'in', ['Active', 'Blocked']),
      )
      .returning(CANCELED_FIELDS)
      .execute();
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

// The charge path's statements, compiled once (issue 15: building and compiling a Kysely query
// per call cost as much as SQLite running it, five times per billing).
const billingInsert = (writeBehind: boolean) =>
  prepared<BillingRow, never>(
    (db, v) =>
      db
        .insertInto('billings')
        .values({
          billing_id: v('billing_id'),
          merchant_id: v('merchant_id'),
          subscription_id: v('subscription_id'),
          installment: v('installment'),
          status: v('status'),
          amount: v('amount'),
          expire_at: v('expire_at'),
          attempts_made: v('attempts_made'),
          next_attempt_at: v('next_attempt_at'),
          charging_payment_id: v('charging_payment_id'),
          attempts_history: v('attempts_history'),
          created_by: v('created_by'),
          created_at: v('created_at'),
          modified_by: v('modified_by'),
          modified_at: v('modified_at'),
        })
        // DO NOTHING (not an error) keeps the caller's PostgreSQL transaction usable.
        .onConflict((oc) => oc.columns(['subscription_id', 'installment']).doNothing()),
    { writeBehind },
  );
const insertBilling = billingInsert(false);
const insertBillingHeld = billingInsert(true);

// Listed, not `b.*`: the charge's load is then planned once per connection on PostgreSQL (src/db/columns.ts).
const BILLING_COLUMNS = allColumns<BillingsTable>()([
  'billing_id', 'merchant_id', 'subscription_id', 'installment', 'status', 'amount', 'expire_at', 'attempts_made',
  'next_attempt_at', 'charging_payment_id', 'attempts_history', 'created_by', 'created_at', 'modified_by', 'modified_at',
]);

const loadForCharge = prepared<{ billingId: string }, ChargeState>((db, v) =>
  db
    .selectFrom('billings as b')
    .innerJoin('subscriptions as s', 's.subscription_id', 'b.subscription_id')
    .innerJoin('plans as p', 'p.plan_id', 's.plan_id')
    .select(BILLING_COLUMNS.map((c) => `b.${c}` as const))
    .select([
      's.status as sub_status',
      's.vault_id',
      's.account_number',
      's.plan_id',
      'p.attempts as plan_attempts',
      'p.installments as plan_installments',
      'p.interval_days',
      'p.amount as plan_amount',
    ])
    .where('b.billing_id', '=', v('billingId')),
);

const claimAttempt = prepared<{ billingId: string; attempt: number; attempts: number; paymentId: string; at: string; by: string }, never>((db, v) =>
  db
    .updateTable('billings')
    .set({ attempts_made: v('attempts'), charging_payment_id: v('paymentId'), next_attempt_at: null, modified_by: v('by'), modified_at: v('at') })
    .where('billing_id', '=', v('billingId'))
    .where('status', '=', 'Opened')
    .where('attempts_made', '=', v('attempt'))
    .where('charging_payment_id', 'is', null)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('subscriptions')
          .select('subscription_id')
          .whereRef('subscriptions.subscription_id', '=', 'billings.subscription_id')
          .where('subscriptions.status', '=', 'Active'),
      ),
    ),
);

type RecordValues = { billingId: string; attempts: number; paymentId: string; status: string; history: string; by: string; at: string };
const recordFenced = (next: 'null' | 'value', writeBehind = false) =>
  prepared<RecordValues & { next?: string }, never>(
    (db, v) =>
      db
        .updateTable('billings')
        .set({
          status: v('status'),
          next_attempt_at: next === 'null' ? null : v('next')!,
          attempts_history: v('history'),
          charging_payment_id: null,
          modified_by: v('by'),
          modified_at: v('at'),
        })
        .where('billing_id', '=', v('billingId'))
        .where('status', '=', 'Opened')
        .where('attempts_made', '=', v('attempts'))
        .where('charging_payment_id', '=', v('paymentId')),
    { writeBehind },
  );
const recordEnd = recordFenced('null');
const recordRetry = recordFenced('value');
// Sent with the transaction's next statement on PostgreSQL (src/db/pg-driver.ts): for a caller
// whose own transaction made the claim, where the fence cannot fail.
const recordEndHeld = recordFenced('null', true);
const recordRetryHeld = recordFenced('value', true);
