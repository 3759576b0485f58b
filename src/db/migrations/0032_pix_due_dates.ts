import { sql, type Kysely } from 'kysely';

/**
 * Pix charges with a due date (API Pix `cobv`) and the terms of a bank slip's Pix code:
 * - pix_charges: due_date (null for an immediate charge), days_after_due, the payer, and the
 *   terms: penalty and monthly interest percents scaled by 10^4, a fixed discount until a date;
 *   paid_amount, what the payer paid (a charge with a due date is paid with its day's amount),
 *   backfilled with the amount for charges already paid;
 * - pix_due_charges (a slip's code): the same terms (with the slip's up to three discounts), so
 *   its location shows the day's amount.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['pix_charges', 'pix_due_charges']) {
    await db.schema.alterTable(table).addColumn('penalty_percent', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable(table).addColumn('interest_percent', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  }
  await db.schema.alterTable('pix_charges').addColumn('discount_amount', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('pix_charges').addColumn('discount_until', 'text').execute();
  /** A slip's up to three discounts, JSON [{amountCents, until}] (cents as strings). */
  await db.schema.alterTable('pix_due_charges').addColumn('discounts', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('pix_charges').addColumn('due_date', 'text').execute();
  await db.schema.alterTable('pix_charges').addColumn('days_after_due', 'integer').execute();
  await db.schema.alterTable('pix_charges').addColumn('payer_document', 'text').execute();
  await db.schema.alterTable('pix_charges').addColumn('payer_name', 'text').execute();
  await db.schema.alterTable('pix_charges').addColumn('paid_amount', 'bigint').execute();
  await sql`update pix_charges set paid_amount = amount where status = 'Paid'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['paid_amount', 'payer_name', 'payer_document', 'days_after_due', 'due_date']) await db.schema.alterTable('pix_charges').dropColumn(column).execute();
  await db.schema.alterTable('pix_due_charges').dropColumn('discounts').execute();
  for (const column of ['discount_until', 'discount_amount']) await db.schema.alterTable('pix_charges').dropColumn(column).execute();
  for (const table of ['pix_due_charges', 'pix_charges']) {
    for (const column of ['interest_percent', 'penalty_percent']) await db.schema.alterTable(table).dropColumn(column).execute();
  }
}
