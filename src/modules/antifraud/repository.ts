import type { Selectable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { AntifraudBlocklistTable } from '../../db/schema.js';
import type { Paging } from '../../http/listing.js';

export type BlocklistRow = Selectable<AntifraudBlocklistTable>;
export type BlocklistKind = AntifraudBlocklistTable['kind'];
export type BlocklistSortColumn = 'created_at' | 'id' | 'kind' | 'value';

/** The `settings` row holding the operator's IP -> country table. */
export const IP_COUNTRIES_KEY = 'antifraud_ip_countries';

export interface VelocityQuery {
  merchantId: string;
  /** ISO start of the window (inclusive); ISO strings compare correctly as text. */
  since: string;
  cardFingerprint: string;
  document?: string;
  ip?: string;
}

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

  /**
   * The kinds among the candidates that are listed: one query, each branch an equality on the
   * unique (kind, value) index. `ips` holds the address and every range that would contain it.
   */
  async blockedKinds(db: Executor, candidates: { card: string; document?: string; email?: string; ips: string[] }): Promise<BlocklistKind[]> {
    const rows = await db
      .selectFrom('antifraud_blocklist')
      .select('kind')
      .distinct()
      .where((eb) => {
        const branches = [eb.and([eb('kind', '=', 'card'), eb('value', '=', candidates.card)])];
        if (candidates.document) branches.push(eb.and([eb('kind', '=', 'document'), eb('value', '=', candidates.document)]));
        if (candidates.email) branches.push(eb.and([eb('kind', '=', 'email'), eb('value', '=', candidates.email)]));
        if (candidates.ips.length > 0) branches.push(eb.and([eb('kind', '=', 'ip'), eb('value', 'in', candidates.ips)]));
        return eb.or(branches);
      })
      .execute();
    return rows.map((r) => r.kind);
  },

  /**
   * Payments of the merchant in the window with the same card, document and IP: one round trip,
   * three counts, each a range scan of its (merchant_id, value, created_at) index. Each count
   * stops at its rule's threshold (`limit`): a rule only asks "at least max?", and a busy shared
   * IP must not make every payment scan its whole history.
   */
  async velocityCounts(db: Executor, q: VelocityQuery, caps: { card: number; document: number; ip: number }): Promise<{ card: number; document: number; ip: number }> {
    const row = await db
      .selectNoFrom((eb) => {
        const count = (column: 'card_fingerprint' | 'customer_document' | 'customer_ip', value: string, cap: number) =>
          eb
            .selectFrom((inner) =>
              inner
                .selectFrom('payments')
                .select('created_at')
                .where('merchant_id', '=', q.merchantId)
                .where(column, '=', value)
                .where('created_at', '>=', q.since)
                .limit(cap)
                .as('w'),
            )
            .select((e) => e.fn.countAll<number>().as('n'));
        return [
          count('card_fingerprint', q.cardFingerprint, caps.card).as('card'),
          // An absent value counts nothing: `= ''` matches no stored document or IP.
          count('customer_document', q.document ?? '', caps.document).as('document'),
          count('customer_ip', q.ip ?? '', caps.ip).as('ip'),
        ];
      })
      .executeTakeFirstOrThrow();
    return { card: Number(row.card ?? 0), document: q.document ? Number(row.document ?? 0) : 0, ip: q.ip ? Number(row.ip ?? 0) : 0 };
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
