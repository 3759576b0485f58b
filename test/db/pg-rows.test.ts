import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/connection.js';
import { arrayRows } from '../../src/db/pg-rows.js';
import { openPostgresPool } from '../../src/db/postgres.js';
import { DEFAULT_DATABASE_SETTINGS } from '../../src/db/timeouts.js';
import { TEST_DATABASE_URL, testDialect } from '../support/database.js';

/**
 * The array reads of the streamed range searches and listings (src/db/pg-rows.ts): the values
 * the ordinary row objects hold, by position, with int8 as numbers.
 */
describe.skipIf(testDialect !== 'postgres')('rows as arrays (PostgreSQL)', () => {
  let opened: ReturnType<typeof openPostgresPool>['pool'];
  beforeAll(() => {
    opened = openPostgresPool(TEST_DATABASE_URL, DEFAULT_DATABASE_SETTINGS, { max: 2 }).pool;
  });
  afterAll(() => opened.end());

  it('reads every control character, backslashes, quotes, non-BMP text and nulls as the row objects hold them', async () => {
    const all = Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join('');
    const values = [all, '\\', '\\N', 'a\\tb', '"quoted"', 'ção \u2028 😀', '', 'tab\there\nnew\rline'];
    const list = values.map((_, i) => `($${i + 1}::text, ${i})`).join(', ');
    const text = `select v, length(v), null::text from (values ${list}) as t(v, n) order by n`;
    const { rows: objects } = await opened.query<Record<string, unknown>>(text, values);
    const rows = await arrayRows(opened, text, values);
    expect(rows).toEqual(objects.map((o) => Object.values(o)));
    expect(rows.map((r) => r[0])).toEqual(values);
  });

  it('integer and bigint columns as numbers: negative, zero, null and 2^53 - 1', async () => {
    const rows = await arrayRows(opened, `select -12345::bigint, 0::int, null::bigint, 9007199254740991::bigint, 'x', -1::int, count(*) from (values (1)) t(x)`, []);
    expect(rows).toEqual([[-12345, 0, null, 9_007_199_254_740_991, 'x', -1, 1]]);
  });

  it('parameters are bound, never inlined: a quote or a placeholder in a value stays data', async () => {
    const tricky = "x'); drop table t; -- $1 \\ '";
    const rows = await arrayRows(opened, 'select $1::text, $2::bigint', [tricky, 9_007_199_254_740_991]);
    expect(rows).toEqual([[tricky, 9_007_199_254_740_991]]);
  });

  it('a query that fails half-way throws, and the pool still answers', async () => {
    await expect(arrayRows(opened, 'select 1 / (3 - n) from generate_series(1, 5) as n', [])).rejects.toThrow(/division by zero/);
    for (let i = 0; i < 3; i++) expect(await arrayRows(opened, 'select 7', [])).toEqual([[7]]);
  });

  it('through Kysely on one connection: the statement after one that failed once rows had come reads whole rows', async () => {
    const database = await openDatabase(TEST_DATABASE_URL, { poolSize: 1 });
    try {
      await expect(sql`select 1 / (3 - n) as v from generate_series(1, 5) as n`.execute(database.db)).rejects.toThrow(/division by zero/);
      expect((await sql<{ v: number }>`select 7 as v`.execute(database.db)).rows).toEqual([{ v: 7 }]);
      expect((await sql<{ v: number }>`select n as v from generate_series(1, 2) as n`.execute(database.db)).rows).toEqual([{ v: 1 }, { v: 2 }]);
    } finally {
      await database.close();
    }
  });
});
