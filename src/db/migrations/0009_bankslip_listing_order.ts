import type { Kysely } from 'kysely';
import { isPostgres } from './helpers.js';

/**
 * The bank slip listings read in keyset pages ordered by (date, seq). On SQLite the
 * 0004 indexes already end in seq: it is the rowid (integer primary key), which every index
 * carries in order. PostgreSQL's do not: each page would read every row from the cursor's date on
 * and sort them. The same indexes with seq appended make each page a plain index range scan.
 */
const COLUMNS = { due: 'due_date', payment: 'payment_date', credit: 'credit_date' } as const;

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const [name, column] of Object.entries(COLUMNS)) {
    await db.schema.createIndex(`bankslips_account_${name}_seq_idx`).on('bankslips').columns(['account_number', column, 'seq']).execute();
    await db.schema.dropIndex(`bankslips_account_${name}_idx`).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const [name, column] of Object.entries(COLUMNS)) {
    await db.schema.createIndex(`bankslips_account_${name}_idx`).on('bankslips').columns(['account_number', column]).execute();
    await db.schema.dropIndex(`bankslips_account_${name}_seq_idx`).execute();
  }
}
