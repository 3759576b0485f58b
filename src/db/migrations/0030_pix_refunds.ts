import type { Kysely } from 'kysely';

/**
 * Pix refunds (devoluções) of the pix module:
 * - pix_refunds: one row per devolução, written InProcess before it is sent under its own id
 *   (the API Pix's devolução id, so the PSP keeps it once), then Returned or NotDone; `nature`
 *   is the API Pix's natureza;
 * - pix_charges.refunded_amount: the cents returned so far, shown as `refundedAmount`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('pix_charges').addColumn('refunded_amount', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema
    .createTable('pix_refunds')
    .addColumn('refund_id', 'text', (c) => c.primaryKey())
    .addColumn('charge_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('account_number', 'bigint', (c) => c.notNull())
    .addColumn('end_to_end_id', 'text')
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('nature', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_reason', 'text')
    .addColumn('sent_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // A charge's refunds in the order they were made (the list endpoint, the amount still refundable).
  await db.schema.createIndex('pix_refunds_charge_idx').on('pix_refunds').columns(['charge_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('pix_refunds').execute();
  await db.schema.alterTable('pix_charges').dropColumn('refunded_amount').execute();
}
