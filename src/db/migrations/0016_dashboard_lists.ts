import type { Kysely } from 'kysely';

/**
 * The dashboard's delivery log filters by notification type and by channel, newest first, a
 * page at a time (WebhookService.deliveryLog). Without these indexes a rare type or channel is
 * found by walking the account's whole log (a read that grows with the log, the longest for a
 * channel with no rows at all); with them a page is a range read. The
 * status filter has its index since 0007; the other dashboard lists ride on the
 * (merchant, created_at) indexes their tables already have.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_notifications_type_idx')
    .on('webhook_notifications')
    .columns(['account_number', 'type', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('webhook_notifications_channel_idx')
    .on('webhook_notifications')
    .columns(['account_number', 'channel', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_notifications_channel_idx').execute();
  await db.schema.dropIndex('webhook_notifications_type_idx').execute();
}
