import type { Kysely } from 'kysely';

/**
 * Pix through a PSP:
 * - every payment the PSP reports, keyed by its endToEndId: the webhook and the reconciliation
 *   job both insert here first, so a payment reported twice (or by both) is applied once;
 * - charges with a due date (`cobv`): the Pix code printed on a bank slip, one per slip.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('pix_payments')
    .addColumn('end_to_end_id', 'text', (c) => c.primaryKey())
    .addColumn('txid', 'text')
    /** The charge it paid (a bank slip's id for a slip's code); null for a Pix without a known charge (kept: the money arrived). */
    .addColumn('charge_id', 'text')
    .addColumn('merchant_id', 'text')
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('paid_at', 'text', (c) => c.notNull())
    /** webhook or reconciliation: which report came first. */
    .addColumn('source', 'text', (c) => c.notNull())
    /** applied (the charge became Paid), or why not: unknown_charge, amount_mismatch, not_pending, not_payable (the slip refused it). */
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pix_payments_charge_idx').on('pix_payments').column('charge_id').execute();

  await db.schema
    .createTable('pix_due_charges')
    .addColumn('txid', 'text', (c) => c.primaryKey())
    /** What the code pays: the bank slip's id. */
    .addColumn('source_id', 'text', (c) => c.notNull().unique())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('due_date', 'text', (c) => c.notNull())
    .addColumn('days_after_due', 'integer', (c) => c.notNull())
    .addColumn('payer_document', 'text', (c) => c.notNull())
    .addColumn('payer_name', 'text', (c) => c.notNull())
    .addColumn('pix_emv', 'text', (c) => c.notNull())
    /** Pending, Paid. */
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('paid_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('pix_due_charges').execute();
  await db.schema.dropTable('pix_payments').execute();
}
