import type { Kysely } from 'kysely';

/**
 * The Pix reconciliation reads the PSP's lists (`GET /pix`, `GET /rec`, `GET /cobr`) by time
 * window (src/modules/pix/reconciliation.ts):
 * - pix_reconcile_cursors: one row per list, the end of the last window read through its last
 *   page, so a restarted instance, or another one, goes on from there.
 * - the open recurrences' and cycle charges' creation instants, indexed by status: the oldest
 *   one still open is where the window of its list starts.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('pix_reconcile_cursors')
    /** pix, rec or cobr. */
    .addColumn('list', 'text', (c) => c.primaryKey())
    .addColumn('read_until', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pix_recurrences_open_idx').on('pix_recurrences').columns(['status', 'created_at']).execute();
  await db.schema.createIndex('pix_recurring_charges_open_idx').on('pix_recurring_charges').columns(['status', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('pix_recurring_charges_open_idx').execute();
  await db.schema.dropIndex('pix_recurrences_open_idx').execute();
  await db.schema.dropTable('pix_reconcile_cursors').execute();
}
