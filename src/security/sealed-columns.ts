import type { DB } from '../db/schema.js';
import { LOOKUP_KEY_SETTING_PREFIX, settingAd } from './keyring.js';

/**
 * A value sealed under DATA_KEY: where it lives and the associated data it was sealed with (the
 * owner's own function, so re-sealing binds it exactly as the owner does). Each owner declares
 * its own; the composition root lists them all (src/root/sealed-columns.ts) for
 * `gateway keys reencrypt`. The canary (keyring.ts) is not listed: reencrypt moves it last.
 */
export interface SealedColumn {
  table: keyof DB;
  /** A unique, orderable column: batches walk the table in its order. */
  key: string;
  /** The column holding the sealed value (null and '' mean "nothing sealed", e.g. a deleted vault card). */
  column: string;
  /** The associated data the value was sealed with, from the row's key. */
  ad: (key: string) => string;
  /** Only the rows whose key is LIKE this (`settings` holds plain values too). */
  keyLike?: string;
  /** The sealed value is this field of a JSON object stored in the column. */
  jsonField?: string;
}

/** The keyring's own sealed values: the lookup keys. */
export const KEYRING_SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'settings', key: 'key', column: 'value', keyLike: `${LOOKUP_KEY_SETTING_PREFIX}%`, ad: settingAd },
];

export const columnName = (c: SealedColumn) => `${c.table}.${c.column}${c.jsonField ? `.${c.jsonField}` : ''}${c.keyLike ? `[${c.key} like '${c.keyLike}']` : ''}`;
