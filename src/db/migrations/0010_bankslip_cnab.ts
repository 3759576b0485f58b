import type { Kysely } from 'kysely';

/**
 * Bank slips with the bank through CNAB 240. The daily remittance reads the slips
 * issued or cancelled on one day: an index on each date. `canceled_by` tells a cancellation the
 * remittance must send to the bank (`merchant`) from a write-off the bank itself reported in a
 * return file (`bank`), which must not be sent back.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('bankslips').addColumn('canceled_by', 'text').execute();
  await db.schema.createIndex('bankslips_issue_date_idx').on('bankslips').columns(['issue_date', 'seq']).execute();
  await db.schema.createIndex('bankslips_canceled_at_idx').on('bankslips').columns(['canceled_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('bankslips_canceled_at_idx').execute();
  await db.schema.dropIndex('bankslips_issue_date_idx').execute();
  await db.schema.alterTable('bankslips').dropColumn('canceled_by').execute();
}
