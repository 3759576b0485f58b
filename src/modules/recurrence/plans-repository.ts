import type { Dialect, Executor } from '../../db/connection.js';
import type { Paging } from '../../http/listing.js';
import { containsIgnoreCase } from './listing-sql.js';
import type { PlanRow } from './resources.js';

export type PlanSortColumn = keyof PlanRow;
export interface PlanFilter {
  merchantId: string;
  name?: string;
  status?: string;
}

export const plansRepository = {
  async insert(db: Executor, row: PlanRow): Promise<void> {
    await db.insertInto('plans').values(row).execute();
  },

  /** A merchant's plan; another merchant's id is simply not found (404, no existence leak). */
  async find(db: Executor, merchantId: string, planId: string): Promise<PlanRow | undefined> {
    return db.selectFrom('plans').selectAll().where('plan_id', '=', planId).where('merchant_id', '=', merchantId).executeTakeFirst();
  },

  /**
   * The plan read under a share lock on PostgreSQL (SQLite has one writer at a time and no such
   * clause): a plan being cancelled right now either finishes first or waits for the reader.
   */
  async findLocked(db: Executor, dialect: Dialect, planId: string): Promise<PlanRow> {
    let query = db.selectFrom('plans').selectAll().where('plan_id', '=', planId);
    if (dialect === 'postgres') query = query.forShare();
    return query.executeTakeFirstOrThrow();
  },

  async findMany(db: Executor, planIds: string[]): Promise<Map<string, PlanRow>> {
    if (planIds.length === 0) return new Map();
    const rows = await db.selectFrom('plans').selectAll().where('plan_id', 'in', [...new Set(planIds)]).execute();
    return new Map(rows.map((r) => [r.plan_id, r]));
  },

  async list(db: Executor, filter: PlanFilter, paging: Paging<PlanSortColumn>): Promise<{ rows: PlanRow[]; total: number }> {
    let query = db.selectFrom('plans').where('merchant_id', '=', filter.merchantId);
    if (filter.name) query = query.where(containsIgnoreCase('name', filter.name));
    if (filter.status) query = query.where('status', '=', filter.status);
    const rows = await query
      .selectAll()
      .orderBy(paging.orderColumn, paging.direction)
      .orderBy('plan_id', paging.direction)
      .limit(paging.limit)
      .offset(paging.offset)
      .execute();
    const { total } = await query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
    return { rows, total: Number(total) };
  },

  async update(db: Executor, planId: string, fields: Partial<PlanRow>): Promise<void> {
    await db.updateTable('plans').set(fields).where('plan_id', '=', planId).execute();
  },

  /** "In use" (contract section 8): the plan has subscriptions, whatever their status. */
  async inUse(db: Executor, planId: string): Promise<boolean> {
    const row = await db.selectFrom('subscriptions').select('subscription_id').where('plan_id', '=', planId).limit(1).executeTakeFirst();
    return row !== undefined;
  },
};
