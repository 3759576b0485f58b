import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { CardKeysTable, CardTokensTable, VaultCardUpdatesTable, VaultCardsTable } from '../../db/schema.js';

export type CardKeyRow = Selectable<CardKeysTable>;
export type CardTokenRow = Selectable<CardTokensTable>;
export type VaultCardRow = Selectable<VaultCardsTable>;

/** The settings row naming the current RSA key; compare-and-set on it serialises key creation. */
export const CURRENT_KEY_SETTING = 'card_key_current';

export const cardKeysRepository = {
  async currentKeyId(db: Executor): Promise<string | undefined> {
    const row = await db.selectFrom('settings').select('value').where('key', '=', CURRENT_KEY_SETTING).executeTakeFirst();
    return row?.value;
  },

  /**
   * Makes `keyId` current if the current key is still `expected` (null: there is none yet).
   * On PostgreSQL a second writer of the same settings row waits for the first transaction and
   * then finds the row changed (UPDATE re-checks its WHERE; INSERT ... ON CONFLICT sees the
   * committed row), so of two racing instances exactly one wins. SQLite has a single writer.
   */
  async claimCurrent(db: Executor, expected: string | null, keyId: string): Promise<boolean> {
    if (expected === null) {
      const inserted = await db
        .insertInto('settings')
        .values({ key: CURRENT_KEY_SETTING, value: keyId })
        .onConflict((oc) => oc.column('key').doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
    }
    const updated = await db
      .updateTable('settings')
      .set({ value: keyId })
      .where('key', '=', CURRENT_KEY_SETTING)
      .where('value', '=', expected)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  },

  async insert(db: Executor, row: CardKeyRow): Promise<void> {
    await db.insertInto('card_keys').values(row).execute();
  },

  async retire(db: Executor, keyId: string, at: string): Promise<void> {
    await db.updateTable('card_keys').set({ retired_at: at }).where('key_id', '=', keyId).where('retired_at', 'is', null).execute();
  },

  async find(db: Executor, keyId: string): Promise<CardKeyRow | undefined> {
    return db.selectFrom('card_keys').selectAll().where('key_id', '=', keyId).executeTakeFirst();
  },

  /** Keys that may still decrypt: not retired, or retired after `retiredAfter` (ISO, wall clock). */
  async usable(db: Executor, retiredAfter: string): Promise<CardKeyRow[]> {
    return db
      .selectFrom('card_keys')
      .selectAll()
      .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', retiredAfter)]))
      .orderBy('created_at', 'desc')
      .execute();
  },
};

export const cardTokensRepository = {
  async insert(db: Executor, row: CardTokenRow): Promise<void> {
    await db.insertInto('card_tokens').values(row).execute();
  },

  /**
   * Marks the token used and answers it, in one statement: of two payments racing for one
   * token exactly one gets the row. Run inside the caller's transaction, so a payment that
   * rolls back leaves the token usable.
   */
  async consume(db: Executor, merchantId: string, numberToken: string, wallNow: string): Promise<CardTokenRow | undefined> {
    return db
      .updateTable('card_tokens')
      .set({ consumed_at: wallNow })
      .where('number_token', '=', numberToken)
      .where('merchant_id', '=', merchantId)
      .where('consumed_at', 'is', null)
      .where('expires_at', '>', wallNow)
      .returningAll()
      .executeTakeFirst();
  },

  /** The merchant's token while it may still be used, left unused. */
  async findUsable(db: Executor, merchantId: string, numberToken: string, wallNow: string): Promise<CardTokenRow | undefined> {
    return db
      .selectFrom('card_tokens')
      .selectAll()
      .where('number_token', '=', numberToken)
      .where('merchant_id', '=', merchantId)
      .where('consumed_at', 'is', null)
      .where('expires_at', '>', wallNow)
      .executeTakeFirst();
  },

  async find(db: Executor, merchantId: string, numberToken: string): Promise<Pick<CardTokenRow, 'consumed_at' | 'expires_at'> | undefined> {
    return db
      .selectFrom('card_tokens')
      .select(['consumed_at', 'expires_at'])
      .where('number_token', '=', numberToken)
      .where('merchant_id', '=', merchantId)
      .executeTakeFirst();
  },
};

export const vaultCardsRepository = {
  async insert(db: Executor, row: VaultCardRow): Promise<void> {
    await db.insertInto('vault_cards').values(row).execute();
  },

  /** The merchant's live card; another merchant's, an unknown or a deleted one is undefined. */
  async findLive(db: Executor, merchantId: string, vaultId: string): Promise<VaultCardRow | undefined> {
    return db.selectFrom('vault_cards').selectAll().where('vault_id', '=', vaultId).where('merchant_id', '=', merchantId).where('deleted_at', 'is', null).executeTakeFirst();
  },

  /** The live stored cards of these refs, in one read; a card is found only for its own merchant. */
  async findLiveOwned(db: Executor, refs: readonly { merchantId: string; vaultId: string }[]): Promise<VaultCardRow[]> {
    if (refs.length === 0) return [];
    const rows = await vaultCardsRepository.findLiveMany(db, [...new Set(refs.map((r) => r.vaultId))]);
    const owner = new Map(refs.map((r) => [r.vaultId, r.merchantId]));
    return rows.filter((row) => owner.get(row.vault_id) === row.merchant_id);
  },

  findLiveMany(db: Executor, vaultIds: string[]): Promise<VaultCardRow[]> {
    if (vaultIds.length === 0) return Promise.resolve([]);
    return db.selectFrom('vault_cards').selectAll().where('vault_id', 'in', vaultIds).where('deleted_at', 'is', null).execute();
  },

  /**
   * Soft delete: the row stays (payments name it), but the sealed PAN is wiped, so a deleted
   * card cannot be charged or recovered even by someone holding DATA_KEY.
   */
  async softDelete(db: Executor, merchantId: string, vaultId: string, at: string): Promise<boolean> {
    const result = await db
      .updateTable('vault_cards')
      .set({ deleted_at: at, pan_sealed: '' })
      .where('vault_id', '=', vaultId)
      .where('merchant_id', '=', merchantId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  /** A live card's number and expiry replaced in place (same vault id); its old card's reference and forced outcome go with it. */
  async replace(db: Executor, merchantId: string, vaultId: string, card: Pick<VaultCardRow, 'pan_sealed' | 'brand' | 'bin' | 'last4' | 'pan_length' | 'exp_month' | 'exp_year' | 'fingerprint'>): Promise<boolean> {
    const result = await db
      .updateTable('vault_cards')
      .set({ ...card, network_reference: null, sandbox_return_code: null })
      .where('vault_id', '=', vaultId)
      .where('merchant_id', '=', merchantId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** The network's reference of the card's first charge or check; kept once set (later charges refer to the first). */
  async setNetworkReference(db: Executor, vaultId: string, reference: string): Promise<void> {
    await vaultCardsRepository.keepNetworkReferences(db, new Map([[vaultId, reference]]));
  },

  /** Each card's first network reference, kept: cards that have one keep theirs. One statement. */
  async keepNetworkReferences(db: Executor, references: ReadonlyMap<string, string>): Promise<void> {
    if (references.size === 0) return;
    const cases = sql.join([...references].map(([vaultId, reference]) => sql`when ${vaultId} then ${reference}`), sql` `);
    await db
      .updateTable('vault_cards')
      .set({ network_reference: sql<string>`case vault_id ${cases} end` })
      .where('vault_id', 'in', [...references.keys()])
      .where('network_reference', 'is', null)
      .execute();
  },

  /** Sandbox: the return code every later charge of a live card answers with (null clears it). False when there is no such live card. */
  async setSandboxReturnCode(db: Executor, vaultId: string, returnCode: string | null): Promise<boolean> {
    const result = await db
      .updateTable('vault_cards')
      .set({ sandbox_return_code: returnCode })
      .where('vault_id', '=', vaultId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },
};

export const cardUpdatesRepository = {
  async insert(db: Executor, row: Selectable<VaultCardUpdatesTable>): Promise<void> {
    await db.insertInto('vault_card_updates').values(row).execute();
  },

  /** A stored card's replacements, newest first. */
  history(db: Executor, merchantId: string, vaultId: string): Promise<Selectable<VaultCardUpdatesTable>[]> {
    return db.selectFrom('vault_card_updates').selectAll().where('vault_id', '=', vaultId).where('merchant_id', '=', merchantId).orderBy('created_at', 'desc').execute();
  },
};
