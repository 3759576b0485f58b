import { sql, type Kysely } from 'kysely';

/**
 * The operator's review queue lists every merchant's Blocked payments oldest first.
 * A partial index holds only those rows (a handful awaiting a decision), so a page is one short
 * range read with 1,000,000 payments in the table, and the payments that are never held (almost
 * all) write no entry in it. The queue's query repeats the predicate as a literal (see
 * src/modules/payments/review-queue.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('payments_review_queue_idx').on('payments').columns(['created_at', 'payment_id']).where(sql.ref('status'), '=', sql.lit('Blocked')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_review_queue_idx').execute();
}
