import type { Dialect, Executor } from '../../db/connection.js';
import type { Paging } from '../../http/listing.js';
import { containsIgnoreCase } from './listing-sql.js';
import type { SubscriptionRow } from './resources.js';
import { assertTransitions, type SubscriptionStatus } from '../../domain/lifecycles.js';

export type SubscriptionSortColumn = keyof SubscriptionRow;
export interface SubscriptionFilter {
  merchantId: string;
  planName?: string;
  status?: SubscriptionStatus;
}

/** Statuses a subscription bills in, or may come back from (Actived). */
export const LIVE: readonly SubscriptionStatus[] = ['Active', 'Blocked'];

export const subscriptionsRepository = {
  async insert(db: Executor, row: SubscriptionRow): Promise<void> {
    await db.insertInto('subscriptions').values(row).execute();
  },

  async find(db: Executor, merchantId: string, subscriptionId: string): Promise<SubscriptionRow | undefined> {
    return db
      .selectFrom('subscriptions')
      .selectAll()
      .where('subscription_id', '=', subscriptionId)
      .where('merchant_id', '=', merchantId)
      .executeTakeFirst();
  },

  /**
   * A subscription's status (it exists: a billing names it). `dialect`: read under a share lock
   * on PostgreSQL (SQLite has one writer at a time), so a cancel racing the caller's transaction
   * either commits first (and is read) or waits for it (and then sees what it wrote).
   */
  async statusOf(db: Executor, subscriptionId: string, dialect?: Dialect): Promise<SubscriptionStatus> {
    let query = db.selectFrom('subscriptions').select('status').where('subscription_id', '=', subscriptionId);
    if (dialect === 'postgres') query = query.forShare();
    const row = await query.executeTakeFirst();
    if (!row) throw new Error(`subscription ${subscriptionId} not found`);
    return row.status;
  },

  /**
   * statusOf for several subscriptions in one read, locked alike, in id order so two
   * transactions that lock some of the same rows take them in the same order.
   */
  async statusOfMany(db: Executor, subscriptionIds: readonly string[], dialect?: Dialect): Promise<Map<string, SubscriptionStatus>> {
    if (subscriptionIds.length === 0) return new Map();
    let query = db.selectFrom('subscriptions').select(['subscription_id', 'status']).where('subscription_id', 'in', [...new Set(subscriptionIds)]).orderBy('subscription_id');
    if (dialect === 'postgres') query = query.forShare();
    const rows = await query.execute();
    const found = new Map(rows.map((row) => [row.subscription_id, row.status]));
    for (const id of subscriptionIds) if (!found.has(id)) throw new Error(`subscription ${id} not found`);
    return found;
  },

  async findMany(db: Executor, ids: string[]): Promise<SubscriptionRow[]> {
    if (ids.length === 0) return [];
    return db.selectFrom('subscriptions').selectAll().where('subscription_id', 'in', [...new Set(ids)]).execute();
  },

  async list(db: Executor, filter: SubscriptionFilter, paging: Paging<SubscriptionSortColumn>): Promise<{ rows: SubscriptionRow[]; total: number }> {
    let query = db.selectFrom('subscriptions').where('merchant_id', '=', filter.merchantId);
    if (filter.status) query = query.where('status', '=', filter.status);
    if (filter.planName) {
      const name = filter.planName;
      query = query.where('plan_id', 'in', (eb) =>
        eb.selectFrom('plans').select('plan_id').where('merchant_id', '=', filter.merchantId).where(containsIgnoreCase('name', name)),
      );
    }
    const rows = await query
      .selectAll()
      .orderBy(paging.orderColumn, paging.direction)
      .orderBy('subscription_id', paging.direction)
      .limit(paging.limit)
      .offset(paging.offset)
      .execute();
    const { total } = await query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
    return { rows, total: Number(total) };
  },

  /**
   * The dashboard's list: newest first, keyset-paged on (created_at, subscription_id) so a page
   * costs the same at any depth (the merchant/status/created_at indexes of migration 0003).
   */
  async keysetPage(db: Executor, filter: { merchantId: string; status?: SubscriptionStatus }, limit: number, after?: { createdAt: string; id: string }): Promise<SubscriptionRow[]> {
    let query = db.selectFrom('subscriptions').selectAll().where('merchant_id', '=', filter.merchantId);
    if (filter.status) query = query.where('status', '=', filter.status);
    if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'subscription_id'), '<', eb.tuple(after.createdAt, after.id)));
    return query.orderBy('created_at', 'desc').orderBy('subscription_id', 'desc').limit(limit).execute();
  },

  /**
   * Conditional move: false when the subscription was not in one of `from` (a concurrent change
   * won). Each state of `from` must move to `to` in the subscriptions table (IllegalTransition).
   */
  async transition(db: Executor, subscriptionId: string, from: readonly SubscriptionStatus[], to: SubscriptionStatus, at: string, extra: Partial<SubscriptionRow> = {}): Promise<boolean> {
    assertTransitions('subscriptions', from, to);
    const result = await db
      .updateTable('subscriptions')
      .set({ ...extra, status: to, updated_at: at })
      .where('subscription_id', '=', subscriptionId)
      .where('status', 'in', [...from])
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Cascade of a plan cancel: its live subscriptions are Canceled, one statement. */
  async cancelLiveOfPlan(db: Executor, planId: string, at: string): Promise<(Pick<SubscriptionRow, 'subscription_id' | 'merchant_id' | 'account_number' | 'plan_id' | 'vault_id'> & { oldStatus: string })[]> {
    // One statement per status before, so each cancelled subscription's event tells it.
    const canceled = [];
    // A Pix subscription still awaiting its payer goes too: it must not become Active under a Canceled plan.
    const live: readonly SubscriptionStatus[] = [...LIVE, 'PendingAuthorization'];
    assertTransitions('subscriptions', live, 'Canceled');
    for (const from of live) {
      const rows = await db
        .updateTable('subscriptions')
        .set({ status: 'Canceled', updated_at: at, ...(from === 'PendingAuthorization' || from === 'Active' ? { canceled_reason: 'The plan was canceled.', canceled_by: 'merchant' } : {}) })
        .where('plan_id', '=', planId)
        .where('status', '=', from)
        .returning(['subscription_id', 'merchant_id', 'account_number', 'plan_id', 'vault_id'])
        .execute();
      canceled.push(...rows.map((r) => ({ ...r, oldStatus: from })));
    }
    return canceled;
  },

  async setVault(db: Executor, subscriptionId: string, vaultId: string, at: string): Promise<void> {
    await db.updateTable('subscriptions').set({ vault_id: vaultId, updated_at: at }).where('subscription_id', '=', subscriptionId).execute();
  },
};
