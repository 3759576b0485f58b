import type { Kysely } from 'kysely';

/**
 * Disputes (chargebacks) of card payments, their module's own tables:
 * - disputes: one per chargeback the acquirer reports, with its reason code and deadline;
 * - dispute_evidence and dispute_files: what the merchant sent, each file sealed under DATA_KEY;
 * and on payments, what the payments module keeps of them: the dispute open on a payment (while
 * it is, the payment cannot be refunded or cancelled) and the cents lost to chargebacks (not
 * refundable any more).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').addColumn('open_dispute_id', 'text').execute();
  await db.schema.alterTable('payments').addColumn('charged_back_amount', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema
    .createTable('disputes')
    .addColumn('dispute_id', 'text', (c) => c.primaryKey())
    .addColumn('payment_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('account_number', 'bigint', (c) => c.notNull())
    .addColumn('brand', 'text', (c) => c.notNull())
    .addColumn('reason_code', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    /** The last business day evidence is taken (YYYY-MM-DD). */
    .addColumn('respond_by', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    /** Who reported it: operator, sandbox (or later an acquirer's feed). */
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('closed_at', 'text')
    .execute();
  // A merchant's list, newest first (with its status filter applied on the way).
  await db.schema.createIndex('disputes_merchant_created_idx').on('disputes').columns(['merchant_id', 'created_at']).execute();
  await db.schema.createIndex('disputes_payment_idx').on('disputes').column('payment_id').execute();
  await db.schema
    .createTable('dispute_evidence')
    .addColumn('evidence_id', 'text', (c) => c.primaryKey())
    .addColumn('dispute_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('text', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dispute_evidence_dispute_idx').on('dispute_evidence').columns(['dispute_id', 'created_at']).execute();
  await db.schema
    .createTable('dispute_files')
    .addColumn('file_id', 'text', (c) => c.primaryKey())
    .addColumn('evidence_id', 'text', (c) => c.notNull())
    .addColumn('dispute_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    /** Its place among the submission's files, as sent. */
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    /** The file's bytes (base64) sealed under DATA_KEY, bound to file_id. */
    .addColumn('content_sealed', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dispute_files_dispute_idx').on('dispute_files').column('dispute_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['dispute_files', 'dispute_evidence', 'disputes']) await db.schema.dropTable(table).execute();
  await db.schema.alterTable('payments').dropColumn('charged_back_amount').execute();
  await db.schema.alterTable('payments').dropColumn('open_dispute_id').execute();
}
