import type { Kysely } from 'kysely';

/**
 * Recurrence: plans, subscriptions and their billings (contract section 8). Money is scaled
 * integers (the plan amount with 6 decimals), datetimes ISO 8601 UTC text, like every table.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('plans')
    .addColumn('plan_id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    /** Amount of one installment, scaled by 10^6 (12.6 is 12600000). */
    .addColumn('amount', 'bigint', (c) => c.notNull())
    /** Monthly, Bimonthly, Quarterly, Semesterly, Yearly, Custom. */
    .addColumn('plan_type', 'text', (c) => c.notNull())
    .addColumn('trial_days', 'integer', (c) => c.notNull())
    .addColumn('payment_method', 'text', (c) => c.notNull())
    /** Days between billings: set from the type for fixed types, given for Custom. */
    .addColumn('interval_days', 'integer', (c) => c.notNull())
    /** Billings a subscription makes; null = no end (every fixed type). */
    .addColumn('installments', 'integer')
    /** Retries after an insufficient-funds decline, 0..4. */
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('plans_merchant_created_idx').on('plans').columns(['merchant_id', 'created_at']).execute();
  await db.schema.createIndex('plans_merchant_status_idx').on('plans').columns(['merchant_id', 'status', 'created_at']).execute();

  await db.schema
    .createTable('subscriptions')
    .addColumn('subscription_id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    /** The merchant's account number, kept here so a charge needs no merchant lookup. */
    .addColumn('account_number', 'bigint', (c) => c.notNull())
    .addColumn('plan_id', 'text', (c) => c.notNull().references('plans.plan_id'))
    /** The stored card charged: the current one (a vault swap replaces it). */
    .addColumn('vault_id', 'text', (c) => c.notNull())
    .addColumn('order_number', 'text', (c) => c.notNull())
    /** Active, Blocked, Canceled, Finished. */
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('subscriptions_merchant_created_idx').on('subscriptions').columns(['merchant_id', 'created_at']).execute();
  await db.schema.createIndex('subscriptions_merchant_status_idx').on('subscriptions').columns(['merchant_id', 'status', 'created_at']).execute();
  // Plan cancel cascades and the "plan in use" check walk a plan's subscriptions.
  await db.schema.createIndex('subscriptions_plan_idx').on('subscriptions').columns(['plan_id', 'status']).execute();

  await db.schema
    .createTable('billings')
    .addColumn('billing_id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('subscription_id', 'text', (c) => c.notNull().references('subscriptions.subscription_id'))
    .addColumn('installment', 'integer', (c) => c.notNull())
    /** Opened, Paid, Denied, PaymentInvalid, Canceled. */
    .addColumn('status', 'text', (c) => c.notNull())
    /** The plan amount when the billing was issued, scaled by 10^6. */
    .addColumn('amount', 'bigint', (c) => c.notNull())
    /** The due date D: the first charge, and the base of the retries (D + 2^k days). */
    .addColumn('expire_at', 'text', (c) => c.notNull())
    /** Charges started so far: the claim of an attempt bumps it before the payment is made. */
    .addColumn('attempts_made', 'integer', (c) => c.notNull())
    /** When the next charge is due while Opened; null once final. */
    .addColumn('next_attempt_at', 'text')
    /** The payment id of the attempt in flight (claimed, outcome not yet recorded), else null. */
    .addColumn('charging_payment_id', 'text')
    /** JSON [{date, returnCode, returnMessage, paymentId}], one entry per attempt. */
    .addColumn('attempts_history', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('modified_by', 'text')
    .addColumn('modified_at', 'text')
    // Billing n of a subscription exists once, however many paths try to issue it.
    .addUniqueConstraint('billings_subscription_installment', ['subscription_id', 'installment'])
    .execute();
  // The list: by merchant, optionally status, over an expiration range, or by creation.
  await db.schema.createIndex('billings_merchant_expire_idx').on('billings').columns(['merchant_id', 'expire_at']).execute();
  await db.schema.createIndex('billings_merchant_status_idx').on('billings').columns(['merchant_id', 'status', 'expire_at']).execute();
  await db.schema.createIndex('billings_merchant_created_idx').on('billings').columns(['merchant_id', 'created_at']).execute();
  // The engine itself reads billings by primary key only (its jobs say which and when): no
  // index on next_attempt_at, which every claim and outcome rewrites.
  // The engine finds the payment of an attempt by its billing; reconciliation counts them.
  await db.schema.createIndex('payments_billing_idx').on('payments').column('billing_id').execute();
  // A billing run puts thousands of jobs at one instant. The claim orders by (run_at, id):
  // with id in the index PostgreSQL reads them in that order and stops at the limit, instead
  // of sorting every tie on each claim. (SQLite's index already ends with the rowid, the id.)
  await db.schema.createIndex('jobs_due_order_idx').on('jobs').columns(['status', 'run_at', 'id']).execute();
  await db.schema.dropIndex('jobs_due_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('jobs_due_idx').on('jobs').columns(['status', 'run_at']).execute();
  await db.schema.dropIndex('jobs_due_order_idx').execute();
  await db.schema.dropIndex('payments_billing_idx').execute();
  for (const table of ['billings', 'subscriptions', 'plans']) {
    await db.schema.dropTable(table).execute();
  }
}
