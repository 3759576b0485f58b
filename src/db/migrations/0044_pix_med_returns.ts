import type { Kysely } from 'kysely';

/**
 * MED returns made by the PSP: a lost claim waits, held, for the return the PSP makes itself;
 * `disputes.refund_id` names that return (a `pix_refunds` row of the MED natureza, under its
 * rtrId) once it is reflected, and the dispute is closed then.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('disputes').addColumn('refund_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('disputes').dropColumn('refund_id').execute();
}
