import type { Kysely } from 'kysely';

/**
 * Stored cards kept alive:
 * - `vault_cards.network_reference`: the network's reference of the card's first charge or
 *   check (Cielo's IssuerTransactionId), sent on later merchant-initiated charges;
 * - `vault_card_updates`: a stored card's history (replaced by the issuer's account updater, or
 *   by its holder on a card update page), with the old and new last four digits, never a number;
 * - `merchants.verify_cards_on_subscribe`: a merchant's choice to check a subscription's card
 *   (zero auth) before the subscription is created, off by default;
 * - `payments.decline_category`: a decline's ABECS category (retryable, final), from the table of
 *   the connector that answered; `payments.network_reference`, an approved charge's network
 *   reference, which a stored card's later billing charges carry when its zero auth gave none;
 * - `card_update_links`: a subscription's card update link (its token's SHA-256 only), used once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('vault_cards').addColumn('network_reference', 'text').execute();
  await db.schema
    .createTable('vault_card_updates')
    .addColumn('update_id', 'text', (c) => c.primaryKey())
    .addColumn('vault_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('old_last4', 'text', (c) => c.notNull())
    .addColumn('new_last4', 'text', (c) => c.notNull())
    .addColumn('old_expiry', 'text', (c) => c.notNull())
    .addColumn('new_expiry', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('vault_card_updates_vault_idx').on('vault_card_updates').columns(['vault_id', 'created_at']).execute();
  await db.schema.alterTable('merchants').addColumn('verify_cards_on_subscribe', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('payments').addColumn('decline_category', 'text').execute();
  await db.schema.alterTable('payments').addColumn('network_reference', 'text').execute();
  await db.schema
    .createTable('card_update_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('subscription_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('card_update_links_subscription_idx').on('card_update_links').columns(['subscription_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('card_update_links').execute();
  await db.schema.alterTable('payments').dropColumn('network_reference').execute();
  await db.schema.alterTable('payments').dropColumn('decline_category').execute();
  await db.schema.alterTable('merchants').dropColumn('verify_cards_on_subscribe').execute();
  await db.schema.dropTable('vault_card_updates').execute();
  await db.schema.alterTable('vault_cards').dropColumn('network_reference').execute();
}
