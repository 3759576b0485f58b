import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { NotificationStatus, WebhookAttemptsTable, WebhookNotificationsTable, WebhookSubscriptionsTable } from '../../db/schema.js';

export type SubscriptionRow = Selectable<WebhookSubscriptionsTable>;
export type NotificationRow = Selectable<WebhookNotificationsTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

/** Binds a sealed secret or basicAuth to its account: a ciphertext moved to another row does not open. */
export const sealedAad = (accountNumber: number) => `webhook-subscription:${accountNumber}`;

export const subscriptionsRepository = {
  find(db: Executor, accountNumber: number): Promise<SubscriptionRow | undefined> {
    return db.selectFrom('webhook_subscriptions').selectAll().where('account_number', '=', accountNumber).executeTakeFirst();
  },

  /** One URL per account: a second registration replaces the first. */
  async upsert(db: Executor, row: SubscriptionRow): Promise<void> {
    await db
      .insertInto('webhook_subscriptions')
      .values(row)
      .onConflict((oc) =>
        oc.column('account_number').doUpdateSet({
          url: row.url,
          basic_auth_sealed: row.basic_auth_sealed,
          secret_sealed: row.secret_sealed,
          event_types: row.event_types,
          updated_at: row.updated_at,
        }),
      )
      .execute();
  },

  async remove(db: Executor, accountNumber: number): Promise<boolean> {
    const result = await db.deleteFrom('webhook_subscriptions').where('account_number', '=', accountNumber).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },
};

export interface DeliveryFilter {
  status?: NotificationStatus;
  channel?: 'webhook' | 'callback';
  /** The notification's type (the dashboard's filter; the API route has no such field). */
  type?: string;
  /** Inclusive ISO bounds on the notification's time. */
  from?: string;
  to?: string;
}

export const notificationsRepository = {
  find(db: Executor, accountNumber: number, id: number): Promise<NotificationRow | undefined> {
    return db.selectFrom('webhook_notifications').selectAll().where('id', '=', id).where('account_number', '=', accountNumber).executeTakeFirst();
  },

  async page(
    db: Executor,
    accountNumber: number,
    filter: DeliveryFilter,
    order: { column: 'id' | 'created_at' | 'status' | 'type'; direction: 'asc' | 'desc' },
    limit: number,
    offset: number,
  ): Promise<{ rows: NotificationRow[]; total: number }> {
    let q = db.selectFrom('webhook_notifications').where('account_number', '=', accountNumber);
    if (filter.status) q = q.where('status', '=', filter.status);
    if (filter.channel) q = q.where('channel', '=', filter.channel);
    if (filter.type) q = q.where('type', '=', filter.type);
    if (filter.from) q = q.where('created_at', '>=', filter.from);
    if (filter.to) q = q.where('created_at', '<', filter.to);
    const [rows, count] = await Promise.all([
      q.selectAll().orderBy(order.column, order.direction).orderBy('id', order.direction).limit(limit).offset(offset).execute(),
      q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  },

  /**
   * An account's notifications written within `windowMs` after each of these times (the
   * dashboard's payment page), in movementId order: one short range of
   * webhook_notifications_account_idx per time.
   */
  nearMoments(db: Executor, accountNumber: number, moments: string[], windowMs: number): Promise<NotificationRow[]> {
    const end = (m: string) => new Date(new Date(m).getTime() + windowMs).toISOString();
    return db
      .selectFrom('webhook_notifications')
      .selectAll()
      .where('account_number', '=', accountNumber)
      .where((eb) => eb.or(moments.map((m) => eb.and([eb('created_at', '>=', m), eb('created_at', '<', end(m))]))))
      .orderBy('id')
      .execute();
  },

  /**
   * The dashboard's log: newest first, keyset-paged on (created_at, id), so a page is an index
   * range read (account/created_at/id, or the type and status indexes) at any depth and never
   * counts the account's notifications.
   */
  async keysetPage(db: Executor, accountNumber: number, filter: DeliveryFilter, limit: number, after?: { createdAt: string; id: number }): Promise<NotificationRow[]> {
    let q = db.selectFrom('webhook_notifications').selectAll().where('account_number', '=', accountNumber);
    if (filter.status) q = q.where('status', '=', filter.status);
    if (filter.channel) q = q.where('channel', '=', filter.channel);
    if (filter.type) q = q.where('type', '=', filter.type);
    if (filter.from) q = q.where('created_at', '>=', filter.from);
    if (filter.to) q = q.where('created_at', '<', filter.to);
    if (after) q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  },

  async attemptsOf(db: Executor, ids: number[]): Promise<Map<number, AttemptRow[]>> {
    const byId = new Map<number, AttemptRow[]>();
    if (ids.length === 0) return byId;
    const rows = await db.selectFrom('webhook_attempts').selectAll().where('notification_id', 'in', ids).orderBy('id').execute();
    for (const row of rows) {
      const id = Number(row.notification_id);
      const list = byId.get(id);
      if (list) list.push(row);
      else byId.set(id, [row]);
    }
    return byId;
  },

  /** A removed subscription stops its account's pending webhooks (callbacks go on: they have their own URL). */
  async cancelPendingWebhooks(db: Executor, accountNumber: number, at: string): Promise<number> {
    const result = await db
      .updateTable('webhook_notifications')
      .set({ status: 'Canceled', next_attempt_at: null, updated_at: at })
      .where('account_number', '=', accountNumber)
      .where('channel', '=', 'webhook')
      .where('status', '=', 'Pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  },

  /** Opens a notification again for a redelivery: Pending, due now, a fresh retry window. */
  async reopen(db: Executor, id: number, at: string, deadline: string): Promise<void> {
    await db.updateTable('webhook_notifications').set({ status: 'Pending', next_attempt_at: at, deadline_at: deadline, updated_at: at }).where('id', '=', id).execute();
  },
};

/** An attempt's outcome for its notification: the new state, fenced on the attempt count read. */
export interface AttemptOutcome {
  id: number;
  /** The notification's attempt count when the attempt began (the fence). */
  attempts: number;
  status: NotificationStatus;
  nextAttemptAt: string | null;
  at: string;
}

/** The delivery engine's queries (webhooks/delivery.ts opens the transactions). */
export const deliveryRepository = {
  /** The notification and its account's subscription (as it is now), in one round trip. */
  async find(db: Executor, id: number) {
    return db
      .selectFrom('webhook_notifications as n')
      .leftJoin('webhook_subscriptions as s', 's.account_number', 'n.account_number')
      .selectAll('n')
      .select(['s.url as subscription_url', 's.basic_auth_sealed', 's.secret_sealed'])
      .where('n.id', '=', id)
      .executeTakeFirst();
  },

  async insertAttempt(db: Executor, attempt: Insertable<WebhookAttemptsTable>): Promise<void> {
    await db.insertInto('webhook_attempts').values(attempt).execute();
  },

  /** The notification's state after an attempt; a stale run (another attempt counted meanwhile, or no longer Pending) changes nothing. */
  async recordOutcome(db: Executor, outcome: AttemptOutcome): Promise<void> {
    await outcomeUpdate(db, outcome).execute();
  },

  /**
   * PostgreSQL: the attempt and the outcome in one statement, one round trip (the insert rides
   * along as a data-modifying CTE, which SQLite does not have).
   */
  async recordAttemptAndOutcome(db: Executor, attempt: Insertable<WebhookAttemptsTable>, outcome: AttemptOutcome): Promise<void> {
    await outcomeUpdate(db.with('attempt', (w) => w.insertInto('webhook_attempts').values(attempt)), outcome).execute();
  },

  /** Ends a Pending notification that cannot be sent. */
  async cancel(db: Executor, id: number, at: string): Promise<void> {
    await db.updateTable('webhook_notifications').set({ status: 'Canceled', next_attempt_at: null, updated_at: at }).where('id', '=', id).where('status', '=', 'Pending').execute();
  },
};

function outcomeUpdate(db: Pick<Executor, 'updateTable'>, o: AttemptOutcome) {
  return db
    .updateTable('webhook_notifications')
    .set({ status: o.status, attempts: o.attempts + 1, next_attempt_at: o.nextAttemptAt, updated_at: o.at })
    .where('id', '=', o.id)
    .where('status', '=', 'Pending')
    .where('attempts', '=', o.attempts);
}
