import { sql, type Kysely } from 'kysely';

/**
 * The dashboard's home charts add up a merchant's payments of the last 30 days by
 * hour, status and return code, and its payment list pages the same range newest first. With
 * status, return_code and amount in the (merchant_id, created_at) index, the charts read only
 * index entries (a covering scan, no table row per payment: 1,000,000 payments stay one range
 * read), and the list filters a status on the index entries before visiting a row. It replaces
 * payments_merchant_created_idx, of which it is an extension (same prefix: its other readers use
 * it as before), so a payment still writes one index entry here, not two.
 *
 * The declines chart counts Denied payments by return code: a partial index of the Denied ones
 * only (both engines have partial indexes) makes that a read of the declines alone instead of a
 * second scan of every payment of the month, and an approved payment never writes to it.
 *
 * The receivables chart (open installments per expected day) and the prepayment quote (every
 * open installment, priced) read only open approved installments: a partial index of those,
 * covering the columns both add up, is read in receipt_date order without visiting a table row,
 * and an installment leaves it when it is received or cancelled.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('payments_merchant_created_cover_idx').on('payments').columns(['merchant_id', 'created_at', 'status', 'return_code', 'amount']).execute();
  await db.schema.dropIndex('payments_merchant_created_idx').execute();
  await db.schema
    .createIndex('receivables_open_idx')
    .on('receivables')
    .columns(['account_number', 'receipt_date', 'received_type', 'received_value', 'installment_value', 'mdr_value', 'trn_fee_installment', 'af_fee_installment'])
    .where((eb) => eb.and([eb(sql.ref('received_status'), '=', sql.lit('A')), eb(sql.ref('installment_status'), '=', sql.lit('A'))]))
    .execute();
  await db.schema.createIndex('payments_denied_idx').on('payments').columns(['merchant_id', 'created_at', 'return_code']).where(sql.ref('status'), '=', sql.lit('Denied')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_denied_idx').execute();
  await db.schema.dropIndex('receivables_open_idx').execute();
  await db.schema.createIndex('payments_merchant_created_idx').on('payments').columns(['merchant_id', 'created_at']).execute();
  await db.schema.dropIndex('payments_merchant_created_cover_idx').execute();
}
