import type { Kysely } from 'kysely';
import { isPostgres } from './helpers.js';

/**
 * search-by-payment-date answers in sale order (transaction_at, installment_number, id) and is
 * read in keyset pages. On PostgreSQL each page was planned as a bitmap scan of the
 * whole range on (account_number, receipt_date) and a sort of every remaining row: O(range) per
 * page, seconds per 31-day answer. With receipt_date in the sale-order index, a page is one range
 * scan of that index in answer order with receipt_date checked on the index entries (no heap
 * visit for rows outside the range), and the planner takes it. It replaces
 * receivables_account_tx_idx, of which it is an extension (same prefix: the other searches use
 * it as before), so a sale still writes one index entry per installment, not two.
 *
 * Not on SQLite: there the sale-order index ends with the rowid (id) right after
 * installment_number, which is the answer order itself; receipt_date in between would make
 * SQLite sort every tie on id, a sort the current order never needs, and its planner already
 * walks the sale-order index for this search.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await db.schema.createIndex('receivables_account_tx_receipt_idx').on('receivables').columns(['account_number', 'transaction_at', 'installment_number', 'receipt_date']).execute();
  await db.schema.dropIndex('receivables_account_tx_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await db.schema.createIndex('receivables_account_tx_idx').on('receivables').columns(['account_number', 'transaction_at', 'installment_number']).execute();
  await db.schema.dropIndex('receivables_account_tx_receipt_idx').execute();
}
