import type { Kysely } from 'kysely';

/**
 * `payments_billing_idx` (billing_id) was read by nothing: a billing finds its payment
 * by the payment id it records (recurrence/charge-attempt.ts), and no API or dashboard page lists
 * payments by billing. Every payment paid for it with an index entry (a billing's payment on a
 * random leaf page, its billing id being random), and every such page is written whole to the
 * WAL at COMMIT.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_billing_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('payments_billing_idx').on('payments').column('billing_id').execute();
}
