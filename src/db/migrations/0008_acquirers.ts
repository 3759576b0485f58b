import type { Kysely } from 'kysely';

/**
 * Acquirer connections:
 * - the sandbox acquirer's ledger, kept in the database so that a lookup after a crash sees
 *   exactly what a dead process sent, as a real acquirer's query would;
 * - a merchant's own acquirer connection (its own Cielo affiliation), the key sealed like card data;
 * - the wall-clock time each payment's authorization was (last) sent, so a lookup's "no record
 *   of it" is believed only once nothing sent can still be in flight.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sandbox_acquirer_ledger')
    /** The authorization's idempotency key (our payment id): one answer per key, whoever asks. */
    .addColumn('idempotency_key', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    /** approved, declined or failed. */
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('return_code', 'text', (c) => c.notNull())
    .addColumn('return_message', 'text', (c) => c.notNull())
    .addColumn('authorization_code', 'text')
    .addColumn('nsu', 'text')
    .addColumn('acquirer_reference', 'text')
    .addColumn('canceled_at', 'text')
    /** Wall-clock time: the ledger belongs to the "remote" party, not to business time. */
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('acquirer_connections')
    .addColumn('merchant_id', 'text', (c) => c.primaryKey())
    /** 'cielo' (the only connector with per-merchant credentials so far). */
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('api_url', 'text', (c) => c.notNull())
    .addColumn('query_url', 'text', (c) => c.notNull())
    /** Which return-code table applies: Cielo's sandbox answers with its own codes. */
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('provider_merchant_id', 'text', (c) => c.notNull())
    /** The MerchantKey, sealed under DATA_KEY and bound to the merchant id. */
    .addColumn('merchant_key_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema.alterTable('payments').addColumn('acquirer_sent_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').dropColumn('acquirer_sent_at').execute();
  await db.schema.dropTable('acquirer_connections').execute();
  await db.schema.dropTable('sandbox_acquirer_ledger').execute();
}
