import { sql, type Kysely } from 'kysely';

/**
 * 3-D Secure on card payments:
 * - `payments.three_ds` (JSON text, null for a payment without 3DS): what was asked, the
 *   authentication's outcome (status, eci, version, liability, the 3DS server's transaction),
 *   and, while a challenge is open, the challenge (acsUrl, creq) and the card sealed for it;
 * - a payment waiting for its buyer's challenge is `PendingAuthentication`, its `recover_at`
 *   the challenge's deadline (business time), found through its own partial index;
 * - `payments.threeds_transaction_id`: the 3DS server's transaction of a challenge, by which its
 *   result (the CRes posted to us) finds the payment;
 * - `disputes.liability_shift`: a fraud chargeback of a sale whose authentication shifted the
 *   liability to the issuer (lost, it is not the merchant's to pay).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('disputes').addColumn('liability_shift', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('payments').addColumn('three_ds', 'text').execute();
  await db.schema.alterTable('payments').addColumn('threeds_transaction_id', 'text').execute();
  await db.schema.createIndex('payments_threeds_transaction_idx').on('payments').column('threeds_transaction_id').unique().execute();
  await db.schema.createIndex('payments_challenge_deadline_idx').on('payments').columns(['recover_at']).where(sql.ref('status'), '=', sql.lit('PendingAuthentication')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('disputes').dropColumn('liability_shift').execute();
  await db.schema.dropIndex('payments_challenge_deadline_idx').execute();
  await db.schema.dropIndex('payments_threeds_transaction_idx').execute();
  await db.schema.alterTable('payments').dropColumn('threeds_transaction_id').execute();
  await db.schema.alterTable('payments').dropColumn('three_ds').execute();
}
