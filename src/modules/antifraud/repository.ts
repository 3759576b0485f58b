import type { Selectable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { AntifraudBlocklistTable } from '../../db/schema.js';
import type { Paging } from '../../http/listing.js';

export type BlocklistRow = Selectable<AntifraudBlocklistTable>;
export type BlocklistKind = AntifraudBlocklistTable['kind'];
export type BlocklistSortColumn = 'created_at' | 'id' | 'kind' | 'value';

/** The `settings` row holding the operator's IP -> country table. */
export const IP_COUNTRIES_KEY = 'antifraud_ip_countries';


export const antifraudRepository = {
  async findSettings(db: Executor, merchantId: string, options: { lock?: boolean } = {}): Promise<string | undefined> {
    let query = db.selectFrom('antifraud_settings').select('settings').where('merchant_id', '=', merchantId);
    if (options.lock) query = query.forUpdate();
    return (await query.executeTakeFirst())?.settings;
  },

  async insertSettingsIfAbsent(db: Executor, merchantId: string, settings: string, at: string): Promise<void> {
    await db
      .insertInto('antifraud_settings')
      .values({ merchant_id: merchantId, settings, updated_at: at })
      .onConflict((oc) => oc.column('merchant_id').doNothing())
      .execute();
  },

  async updateSettings(db: Executor, merchantId: string, settings: string, at: string): Promise<void> {
    await db.updateTable('antifraud_settings').set({ settings, updated_at: at }).where('merchant_id', '=', merchantId).execute();
  },

  /** Undefined when (kind, value) is already listed. */
  async insertBlock(db: Executor, row: Omit<BlocklistRow, 'id'>): Promise<BlocklistRow | undefined> {
    return db
      .insertInto('antifraud_blocklist')
      .values(row)
      .onConflict((oc) => oc.columns(['kind', 'value']).doNothing())
      .returningAll()
      .executeTakeFirst();
  },

  async listBlocks(db: Executor, kind: BlocklistKind | undefined, paging: Paging<BlocklistSortColumn>): Promise<{ rows: BlocklistRow[]; total: number }> {
    let rows = db.selectFrom('antifraud_blocklist').selectAll();
    let count = db.selectFrom('antifraud_blocklist').select((eb) => eb.fn.countAll<number>().as('total'));
    if (kind) {
      rows = rows.where('kind', '=', kind);
      count = count.where('kind', '=', kind);
    }
    const page = await rows
      .orderBy(paging.orderColumn, paging.direction)
      .orderBy('id', paging.direction)
      .limit(paging.limit)
      .offset(paging.offset)
      .execute();
    const { total } = await count.executeTakeFirstOrThrow();
    return { rows: page, total: Number(total) };
  },

  async deleteBlock(db: Executor, id: number): Promise<BlocklistRow | undefined> {
    return db.deleteFrom('antifraud_blocklist').where('id', '=', id).returningAll().executeTakeFirst();
  },

  /** The IP ranges (not single addresses) on the blocklist. */
  async blockedRanges(db: Executor): Promise<string[]> {
    const rows = await db.selectFrom('antifraud_blocklist').select('value').where('kind', '=', 'ip').where('value', 'like', '%/%').execute();
    return rows.map((r) => r.value);
  },

  async findSetting(db: Executor, key: string): Promise<string | undefined> {
    return (await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst())?.value;
  },

  async putSetting(db: Executor, key: string, value: string): Promise<void> {
    await db
      .insertInto('settings')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
  },
};
