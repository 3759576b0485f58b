import type { Kysely } from 'kysely';

/**
 * An event for every state change.
 * - webhook_subscriptions.event_types: the JSON array of types the subscription receives; null
 *   keeps what every subscription received before (the three conciliation types), so existing
 *   integrations see no change.
 * - subscriptions.blocked_reason / blocked_return_code: why a recurring subscription was
 *   Blocked (the charge's return message and code), shown by its GET and its event.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_subscriptions').addColumn('event_types', 'text').execute();
  await db.schema.alterTable('subscriptions').addColumn('blocked_reason', 'text').execute();
  await db.schema.alterTable('subscriptions').addColumn('blocked_return_code', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscriptions').dropColumn('blocked_return_code').execute();
  await db.schema.alterTable('subscriptions').dropColumn('blocked_reason').execute();
  await db.schema.alterTable('webhook_subscriptions').dropColumn('event_types').execute();
}
