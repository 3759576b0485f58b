import { sql, type Kysely } from 'kysely';

/**
 * The payment path writes only the payment and its event; what follows a sale is done in batches.
 *
 * - `payment_events.relayed`: 0 while the event's effects (webhook notifications, receivables)
 *   are still to be made by the payments relay; every earlier event counts as relayed.
 * - `payments.recover_at` (business time): when the recovery sweep asks the acquirer about a
 *   payment still Pending, written with the payment instead of a recovery job per payment.
 *   Pending payments' recovery jobs become that column.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_events').addColumn('relayed', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.createIndex('payment_events_unrelayed_idx').on('payment_events').column('id').where(sql.ref('relayed'), '=', sql.lit(0)).execute();
  await db.schema.alterTable('payments').addColumn('recover_at', 'text').execute();
  await db.schema.createIndex('payments_recovery_idx').on('payments').columns(['recover_at']).where(sql.ref('status'), '=', sql.lit('Pending')).execute();
  await sql`update payments set recover_at = (select run_at from jobs where jobs.dedupe_key = 'payment.recover:' || payments.payment_id and jobs.status in ('pending', 'running'))
            where status = 'Pending' and billing_id is null`.execute(db);
  await sql`update payments set recover_at = created_at where status = 'Pending' and billing_id is null and recover_at is null`.execute(db);
  await sql`delete from jobs where kind = 'payment.recover'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_recovery_idx').execute();
  await db.schema.alterTable('payments').dropColumn('recover_at').execute();
  await db.schema.dropIndex('payment_events_unrelayed_idx').execute();
  await db.schema.alterTable('payment_events').dropColumn('relayed').execute();
}
