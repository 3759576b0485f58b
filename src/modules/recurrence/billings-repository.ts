import { sql } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { Paging } from '../../http/listing.js';
import type { BillingRow } from './resources.js';
import { assertTransition, sourcesOf, type BillingStatus, type SubscriptionStatus } from '../../domain/lifecycles.js';

export type BillingSortColumn = keyof BillingRow;
export interface BillingFilter {
  merchantId: string;
  status?: BillingStatus;
  /** Inclusive lower bound of expire_at (ISO instant). */
  expireFrom?: string;
  /** Exclusive upper bound of expire_at (ISO instant). */
  expireBefore?: string;
}

/** A billing with what its charge needs from its subscription and plan, in one read. */
export interface ChargeState extends BillingRow {
  sub_status: SubscriptionStatus;
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

/** The states a billing is cancelled from (the billings table). */
const CANCELABLE = sourcesOf('billings', 'Canceled');

export const billingsRepository = {
  /** Inserts each billing n of a subscription unless it exists already: answers the ids this call made. */
  async insertIfAbsent(db: Executor, rows: BillingRow[]): Promise<Set<string>> {
    if (rows.length === 0) return new Set();
    const inserted = await db
      .insertInto('billings')
      .values(rows)
      // DO NOTHING (not an error) keeps the caller's PostgreSQL transaction usable.
      .onConflict((oc) => oc.columns(['subscription_id', 'installment']).doNothing())
      .returning('billing_id')
      .execute();
    return new Set(inserted.map((row) => row.billing_id));
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
    return chargeStates(db).where('b.billing_id', '=', billingId).executeTakeFirst();
  },

  /** loadForCharge for the billings of a batch, in one read (an unknown id is left out). */
  async loadForChargeMany(db: Executor, billingIds: readonly string[]): Promise<ChargeState[]> {
    if (billingIds.length === 0) return [];
    return chargeStates(db).where('b.billing_id', 'in', [...new Set(billingIds)]).execute();
  },

  /**
   * Claims charge attempt `attempt` (0 = the first charge at D) of an Opened billing whose
   * subscription is Active: bumps attempts_made and records the payment id the attempt will
   * use, committed before the payment is made. Exactly one caller wins a given attempt (two
   * workers, a duplicate job); a Canceled billing or a subscription that stopped meanwhile is
   * not claimed, so it is never charged.
   */
  async claim(db: Executor, billingId: string, attempt: number, paymentId: string, at: string): Promise<boolean> {
    return (await this.claimMany(db, [{ billingId, attempt, paymentId }], at)).has(billingId);
  },

  /**
   * `claim` for a batch, in one statement: answers the billings claimed. The rows come as a
   * VALUES list (column1..3 on both engines), padded to a power of two by repeating one so the
   * statement has one of a few texts. Claimed in billing id order, so two claimers given the same
   * billings (duplicate jobs) lock them in one order.
   */
  async claimMany(db: Executor, claims: readonly BillingClaim[], at: string): Promise<Set<string>> {
    if (claims.length === 0) return new Set();
    const sorted = [...claims].sort((a, b) => (a.billingId < b.billingId ? -1 : 1));
    const values = sql.join(padded(sorted).map((c) => sql`(${c.billingId}, ${c.paymentId}, cast(${c.attempt} as integer))`));
    const { rows } = await sql<{ billing_id: string }>`
      update billings as b
      set attempts_made = b.attempts_made + 1, charging_payment_id = v.column2, next_attempt_at = null, modified_by = ${SYSTEM}, modified_at = ${at}
      from (values ${values}) as v
      where b.billing_id = v.column1 and b.status = 'Opened' and b.attempts_made = v.column3 and b.charging_payment_id is null
        and exists (select 1 from subscriptions as s where s.subscription_id = b.subscription_id and s.status = 'Active')
      returning billing_id`.execute(db);
    return new Set(rows.map((row) => row.billing_id));
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
    outcomeOfOpened(fields.status);
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
   * `record` for a batch, in one statement (VALUES as in claimMany): answers the billings
   * recorded, each fenced by its own claim.
   */
  async recordMany(db: Executor, outcomes: readonly BillingOutcome[], at: string): Promise<Set<string>> {
    if (outcomes.length === 0) return new Set();
    for (const o of outcomes) outcomeOfOpened(o.fields.status);
    const values = sql.join(
      padded([...outcomes]).map(
        (o) => sql`(${o.claim.billingId}, ${o.claim.paymentId}, cast(${o.claim.attempt + 1} as integer), ${o.fields.status}, cast(${o.fields.next_attempt_at} as text), ${o.fields.attempts_history})`,
      ),
    );
    const { rows } = await sql<{ billing_id: string }>`
      update billings as b
      set status = v.column4, next_attempt_at = v.column5, attempts_history = v.column6, charging_payment_id = null, modified_by = ${SYSTEM}, modified_at = ${at}
      from (values ${values}) as v
      where b.billing_id = v.column1 and b.status = 'Opened' and b.attempts_made = v.column3 and b.charging_payment_id = v.column2
      returning billing_id`.execute(db);
    return new Set(rows.map((row) => row.billing_id));
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
      .where('status', 'in', CANCELABLE)
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
      .where('status', 'in', CANCELABLE)
      .where('charging_payment_id', 'is', null)
      .returning(CANCELED_FIELDS)
      .execute();
  },

  /** Cascade of a plan cancel: the Opened billings of its live subscriptions, one statement. */
  cancelOpenedOfPlan(db: Executor, planId: string, m: Modification): Promise<CanceledBilling[]> {
    return db
      .updateTable('billings')
      .set({ status: 'Canceled', next_attempt_at: null, modified_by: m.by, modified_at: m.at })
      .where('status', 'in', CANCELABLE)
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
    outcomeOfOpened(fields.status);
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

/** An attempt to claim: the billing, the attempt its job runs, the payment id it will use. */
export interface BillingClaim {
  billingId: string;
  attempt: number;
  paymentId: string;
}

/** A claimed attempt's outcome (see `record`). */
export interface BillingOutcome {
  claim: BillingClaim;
  fields: Pick<BillingRow, 'status' | 'next_attempt_at' | 'attempts_history'>;
}

/** A billing with its subscription's and plan's terms (ChargeState), by primary key. */
function chargeStates(db: Executor) {
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
    ]);
}

/**
 * Every move of a billing starts Opened (the billings table in src/domain/lifecycles.ts), which
 * the writers' `status = 'Opened'` guard holds; a retry keeps it Opened. Any other outcome not in
 * the table is IllegalTransition, before the statement.
 */
function outcomeOfOpened(to: BillingStatus): void {
  if (to !== 'Opened') assertTransition('billings', 'Opened', to);
}

/** The list grown to a power of two by repeating its first item: a statement of one of a few texts. */
function padded<T>(items: readonly T[]): T[] {
  const size = 2 ** Math.ceil(Math.log2(items.length));
  return [...items, ...Array<T>(size - items.length).fill(items[0])];
}
