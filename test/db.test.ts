import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase, testDialect } from './support/database.js';
import { sql } from 'kysely';
import { migrateDown, migrateToLatest, migrationsApplied } from '../src/db/migrate.js';
import type { Database } from '../src/db/connection.js';

/** The names of the indexes on `table` whose definition names `column`. */
async function indexesOn(database: Database, table: string, column: string): Promise<string[]> {
  const query =
    database.dialect === 'postgres'
      ? sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() and tablename = ${table} and indexdef like ${`%${column}%`}`
      : sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = ${table} and sql like ${`%${column}%`}`;
  return (await query.execute(database.db)).rows.map((r) => r.name);
}

describe(`database (${testDialect})`, () => {
  it('applies every migration and stores exact integers', async () => {
    const database = await freshDatabase();
    afterAll(() => database.close());
    expect(await migrationsApplied(database)).toBe(true);
    const row = await database.db
      .insertInto('merchants')
      .values({ merchant_id: 'm1', name: 'A', document_number: '11222333000181', legal_name: null, email: null, created_at: '2026-01-01T00:00:00.000Z' })
      .returning('account_number')
      .executeTakeFirstOrThrow();
    expect(row.account_number).toBe(100001);
  });

  it('keeps no index on payments.billing_id, which nothing reads (0018), and its down migration puts it back', async () => {
    const database = await freshDatabase();
    afterAll(() => database.close());
    expect(await indexesOn(database, 'payments', 'billing_id')).toEqual([]);
    // Down through the later migrations (their own down migrations run on the way) to 0018's.
    for (let reverted: string[] = []; !reverted.includes('0018_payments_without_billing_index'); ) {
      reverted = await migrateDown(database);
      expect(reverted).toHaveLength(1);
    }
    expect(await indexesOn(database, 'payments', 'billing_id')).toEqual(['payments_billing_idx']);
    await migrateToLatest(database);
    expect(await indexesOn(database, 'payments', 'billing_id')).toEqual([]);
  });
});
