import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/connection.js';
import { DataCipher } from './data-cipher.js';
import { CANARY_PLAINTEXT, CANARY_SETTING, settingAd } from './keyring.js';
import { columnName, type SealedColumn } from './sealed-columns.js';

/**
 * `gateway keys reencrypt`: moves every sealed value to the current DATA_KEY, so the previous
 * keys can leave DATA_KEYS_PREVIOUS. Each column is walked in its key's order, `batch` rows at a
 * time, each batch in its own transaction. Only values not yet under the current key are read
 * (by their `v1.<keyId>.` prefix), so a second run, or a run after a kill, does only what is
 * left. A row is updated only if it still holds the value read: a value the service rewrote
 * meanwhile (under the current key, every instance running it) is left alone.
 */
export interface ColumnReport {
  column: string;
  /** Re-sealed under the current key. */
  moved: number;
  /** Rewritten by the service between the read and the update (left as the service wrote it). */
  changedMeanwhile: number;
  /** Did not open: a key outside the keyring (counted by key id in `failedKeyIds`) or an altered value. */
  failed: number;
}

export interface ReencryptSummary {
  currentKeyId: string;
  columns: ColumnReport[];
  /** Key ids of the values that did not open, with their counts (never any row's content). */
  failedKeyIds: Record<string, number>;
  /** Values still sealed under another key after the run (0: the previous keys may go). */
  remaining: number;
  /** The canary moves last, only when `remaining` is 0. */
  canary: 'moved' | 'already current' | 'kept: values remain under older keys';
}

export interface ReencryptProgress {
  column: string;
  batch: number;
  moved: number;
  changedMeanwhile: number;
  failed: number;
}

export interface ReencryptOptions {
  batch?: number;
  onProgress?: (progress: ReencryptProgress) => void;
}

type AnyDb = Kysely<any>;
type Row = Record<string, unknown>;

function sealedIn(column: SealedColumn, value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  if (!column.jsonField) return value;
  const field = (JSON.parse(value) as Record<string, unknown>)[column.jsonField];
  return typeof field === 'string' && field !== '' ? field : undefined;
}

function withSealed(column: SealedColumn, value: string, sealed: string): string {
  if (!column.jsonField) return sealed;
  return JSON.stringify({ ...(JSON.parse(value) as Record<string, unknown>), [column.jsonField]: sealed });
}

/** Rows of `column` that may hold a value under another key (JSON fields are checked in code). */
function candidates(db: AnyDb, column: SealedColumn, prefix: string) {
  let query = db.selectFrom(column.table).select([column.key, column.column]).where(column.column, 'is not', null).where(column.column, '<>', '');
  if (column.keyLike) query = query.where(column.key, 'like', column.keyLike);
  // substr works alike on both engines (SQLite's LIKE ignores case, PostgreSQL's does not).
  if (!column.jsonField) query = query.where(sql`substr(${sql.ref(column.column)}, 1, ${prefix.length})`, '<>', prefix);
  return query;
}

async function moveColumn(db: AnyDb, cipher: DataCipher, column: SealedColumn, batch: number, failedKeyIds: Record<string, number>, onProgress?: (p: ReencryptProgress) => void): Promise<ColumnReport> {
  const report: ColumnReport = { column: columnName(column), moved: 0, changedMeanwhile: 0, failed: 0 };
  const prefix = cipher.currentPrefix;
  let after: unknown;
  for (let n = 1; ; n++) {
    const rows = await db.transaction().execute(async (trx) => {
      let query = candidates(trx, column, prefix);
      // Keyset paging: a value that does not open is passed over, never read again in this run.
      if (after !== undefined) query = query.where(column.key, '>', after);
      const rows = (await query.orderBy(column.key).limit(batch).execute()) as Row[];
      for (const row of rows) {
        const stored = row[column.column] as string;
        const sealed = sealedIn(column, stored);
        if (sealed === undefined || sealed.startsWith(prefix)) continue;
        const ad = column.ad(String(row[column.key]));
        let plaintext: string;
        try {
          plaintext = cipher.decrypt(sealed, ad);
        } catch {
          report.failed++;
          const keyId = DataCipher.keyIdOf(sealed) ?? 'unreadable';
          failedKeyIds[keyId] = (failedKeyIds[keyId] ?? 0) + 1;
          continue;
        }
        const result = await trx
          .updateTable(column.table)
          .set({ [column.column]: withSealed(column, stored, cipher.encrypt(plaintext, ad)) })
          .where(column.key, '=', row[column.key])
          .where(column.column, '=', stored)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 1) report.moved++;
        else report.changedMeanwhile++;
      }
      return rows;
    });
    if (rows.length === 0) break;
    after = rows[rows.length - 1][column.key];
    onProgress?.({ column: report.column, batch: n, moved: report.moved, changedMeanwhile: report.changedMeanwhile, failed: report.failed });
    if (rows.length < batch) break;
  }
  return report;
}

/** How many values of `column` are not under the current key. */
async function remainingIn(db: AnyDb, cipher: DataCipher, column: SealedColumn): Promise<number> {
  const prefix = cipher.currentPrefix;
  if (column.jsonField) {
    const rows = (await candidates(db, column, prefix).execute()) as Row[];
    return rows.filter((row) => !(sealedIn(column, row[column.column]) ?? prefix).startsWith(prefix)).length;
  }
  const { count } = (await candidates(db, column, prefix).clearSelect().select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow()) as { count: number | string };
  return Number(count);
}

/** Re-seals every value of `columns` (the root's list of all sealed columns) under the current key, then the canary. */
export async function reencryptAll(database: Database, cipher: DataCipher, columns: readonly SealedColumn[], options: ReencryptOptions = {}): Promise<ReencryptSummary> {
  const db = database.db as unknown as AnyDb;
  const batch = options.batch ?? 500;
  const failedKeyIds: Record<string, number> = {};
  const reports: ColumnReport[] = [];
  for (const column of columns) reports.push(await moveColumn(db, cipher, column, batch, failedKeyIds, options.onProgress));

  // Counted again after the walk: values an instance still running an older DATA_KEY wrote
  // meanwhile show up here, and keep the canary where it is.
  let remaining = 0;
  for (const column of columns) remaining += await remainingIn(db, cipher, column);
  return { currentKeyId: cipher.currentKeyId, columns: reports, failedKeyIds, remaining, canary: remaining === 0 ? await moveCanary(db, cipher) : 'kept: values remain under older keys' };
}

/** Re-seals the canary under the current key: from now on the keyring must hold that key. */
async function moveCanary(db: AnyDb, cipher: DataCipher): Promise<ReencryptSummary['canary']> {
  const row = (await db.selectFrom('settings').select('value').where('key', '=', CANARY_SETTING).executeTakeFirst()) as { value: string } | undefined;
  const ad = settingAd(CANARY_SETTING);
  if (row && row.value.startsWith(cipher.currentPrefix)) return 'already current';
  // Opening it first: a canary that does not open would have stopped this process at start.
  const sealed = cipher.encrypt(row ? cipher.decrypt(row.value, ad) : CANARY_PLAINTEXT, ad);
  if (row) await db.updateTable('settings').set({ value: sealed }).where('key', '=', CANARY_SETTING).where('value', '=', row.value).execute();
  else await db.insertInto('settings').values({ key: CANARY_SETTING, value: sealed }).onConflict((oc) => oc.column('key').doNothing()).execute();
  return 'moved';
}
