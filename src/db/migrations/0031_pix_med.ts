import type { Kysely } from 'kysely';

/**
 * MED claims (the Pix's special return mechanism) as disputes:
 * - disputes.type: `chargeback` (a card payment; payment_id is the payment) or `pix_med` (a
 *   received Pix; payment_id holds the Pix charge's id, brand is PIX);
 * - pix_charges.med_dispute_id and med_blocked_amount: the claim open on a charge and the cents
 *   it holds (not refundable meanwhile).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('disputes').addColumn('type', 'text', (c) => c.notNull().defaultTo('chargeback')).execute();
  await db.schema.alterTable('pix_charges').addColumn('med_dispute_id', 'text').execute();
  await db.schema.alterTable('pix_charges').addColumn('med_blocked_amount', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('pix_charges').dropColumn('med_blocked_amount').execute();
  await db.schema.alterTable('pix_charges').dropColumn('med_dispute_id').execute();
  await db.schema.alterTable('disputes').dropColumn('type').execute();
}
