import type { Kysely } from 'kysely';

/**
 * Pix Automático (API Pix `/rec`, `/locrec`, `/cobr`):
 * - subscriptions: why a subscription was canceled and by whom (a Pix recurrence refused,
 *   expired or cancelled by the payer or the merchant); a Pix subscription's vault_id is ''.
 * - pix_recurrences: one per Pix subscription, the recurrence at the PSP: its idRec, its
 *   locrec (the location its journey-3 code carries), the first charge paid with the
 *   authorization, its status, the payer; in the sandbox, what the payer's account answers
 *   the next charges (`next_outcome`).
 * - pix_recurring_charges: one `cobr` per billing cycle after the first, its due date, its
 *   status and tentatives (JSON), and the pix_charges row its payment is recorded in.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscriptions').addColumn('canceled_reason', 'text').execute();
  await db.schema.alterTable('subscriptions').addColumn('canceled_by', 'text').execute();

  await db.schema
    .createTable('pix_recurrences')
    .addColumn('recurrence_id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('account_number', 'bigint', (c) => c.notNull())
    .addColumn('subscription_id', 'text', (c) => c.notNull().unique())
    /** The locrec id and the location its code carries (no scheme). */
    .addColumn('location_id', 'text', (c) => c.notNull().unique())
    .addColumn('location', 'text', (c) => c.notNull())
    /** Journey 3: the immediate charge paid with the authorization (a pix_charges row). */
    .addColumn('first_charge_id', 'text', (c) => c.notNull())
    .addColumn('first_txid', 'text', (c) => c.notNull())
    .addColumn('pix_emv', 'text', (c) => c.notNull())
    /** CRIADA, APROVADA, REJEITADA, EXPIRADA, CANCELADA. */
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('periodicity', 'text', (c) => c.notNull())
    .addColumn('retry_policy', 'text', (c) => c.notNull())
    /** Cents a cycle. */
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('first_due_date', 'text', (c) => c.notNull())
    .addColumn('final_date', 'text')
    .addColumn('payer_document', 'text', (c) => c.notNull())
    .addColumn('payer_name', 'text', (c) => c.notNull())
    .addColumn('contract', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    /** Sandbox: paid or insufficient_funds, what the next charges meet. */
    .addColumn('next_outcome', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('canceled_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pix_recurrences_merchant_idx').on('pix_recurrences').columns(['merchant_id', 'created_at']).execute();

  await db.schema
    .createTable('pix_recurring_charges')
    .addColumn('txid', 'text', (c) => c.primaryKey())
    .addColumn('recurrence_id', 'text', (c) => c.notNull().references('pix_recurrences.recurrence_id'))
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    /** The billing this cobr charges: one cobr per billing. */
    .addColumn('billing_id', 'text', (c) => c.notNull().unique())
    /** The pix_charges row the payment is recorded in (conciliation, refunds). */
    .addColumn('charge_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('due_date', 'text', (c) => c.notNull())
    /** When the due date's settlement runs (the billing's due instant). */
    .addColumn('due_at', 'text', (c) => c.notNull())
    /** ATIVA, CONCLUIDA, REJEITADA, CANCELADA. */
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('retries', 'integer', (c) => c.notNull())
    /** JSON [{date, status, reason}], the API Pix's tentativas. */
    .addColumn('attempts', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pix_recurring_charges_rec_idx').on('pix_recurring_charges').columns(['recurrence_id', 'status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('pix_recurring_charges').execute();
  await db.schema.dropTable('pix_recurrences').execute();
  await db.schema.alterTable('subscriptions').dropColumn('canceled_by').execute();
  await db.schema.alterTable('subscriptions').dropColumn('canceled_reason').execute();
}
