import { sql, type Kysely } from 'kysely';

/**
 * Card refunds (partial or full) of the payments module:
 * - payment_refunds: one row per refund, written Pending before it is sent under its own id, then
 *   Succeeded or Failed; at most one Pending per payment (a unique partial index), because an
 *   acquirer that shows only a sale's refunded total (Cielo's VoidedAmount) can tell a lost
 *   answer apart only when one refund of the sale is in flight at a time;
 * - payments.refunded_amount: the cents refunded so far, shown as `refundedAmount`;
 * - sandbox_acquirer_ledger.refunded_amount: what the sandbox acquirer has refunded of a sale it
 *   approved (its refunds are ledger rows of their own, keyed `refund:<sale>:<refund id>`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').addColumn('refunded_amount', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('sandbox_acquirer_ledger').addColumn('refunded_amount', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema
    .createTable('payment_refunds')
    .addColumn('refund_id', 'text', (c) => c.primaryKey())
    .addColumn('payment_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('account_number', 'bigint', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('refunded_before', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('return_message', 'text')
    .addColumn('acquirer_sent_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // A payment's refunds in the order they were made (the list endpoint).
  await db.schema.createIndex('payment_refunds_payment_idx').on('payment_refunds').columns(['payment_id', 'created_at']).execute();
  await db.schema.createIndex('payment_refunds_one_pending_idx').on('payment_refunds').column('payment_id').unique()
    // A literal: a statement that creates an index takes no parameters.
    .where(sql.ref('status'), '=', sql.lit('Pending'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('payment_refunds').execute();
  await db.schema.alterTable('sandbox_acquirer_ledger').dropColumn('refunded_amount').execute();
  await db.schema.alterTable('payments').dropColumn('refunded_amount').execute();
}
