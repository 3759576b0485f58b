import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyRows, literal, unescapeCopyText } from '../../src/db/pg-copy.js';
import { TEST_DATABASE_URL, testDialect } from '../support/database.js';

/**
 * The COPY read of the streamed range searches (src/db/pg-copy.ts) against what the ordinary
 * protocol (node-postgres, rows as arrays) reads for the same query: every character that COPY
 * escapes or that a chunk boundary can cut, nulls, integers, and the literals it inlines.
 */
describe.skipIf(testDialect !== 'postgres')('COPY rows (PostgreSQL)', () => {
  let pool: pg.Pool;
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
  });
  afterAll(() => pool.end());

  const viaProtocol = async (text: string, values: unknown[]) => (await pool.query({ text, values, rowMode: 'array' })).rows;

  it('reads every control character, backslashes, quotes, non-BMP text and nulls as the protocol does', async () => {
    const all = Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join('');
    const values = [all, '\\', '\\N', 'a\\tb', '"quoted"', 'ção \u2028 😀', '', 'tab\there\nnew\rline'];
    const list = values.map((_, i) => `($${i + 1}::text, ${i})`).join(', ');
    const text = `select v, length(v), null::text from (values ${list}) as t(v, n) order by n`;
    const expected = await viaProtocol(text, values);
    const rows = await copyRows(pool, text, values, [false, true, false]);
    expect(rows).toEqual(expected);
    expect(rows.map((r) => r[0])).toEqual(values);
  });

  it('integer columns: negative, zero, null and 2^53 - 1, in any position', async () => {
    const text = `select -12345::bigint, 0::int, null::bigint, 9007199254740991::bigint, 'x', -1::int`;
    const rows = await copyRows(pool, text, [], [true, true, true, true, false, true]);
    expect(rows).toEqual([[-12345, 0, null, 9_007_199_254_740_991, 'x', -1]]);
    expect(rows).toEqual(await viaProtocol(text, []));
  });

  it('a multi-byte character cut by a chunk boundary is read whole (rows of 600 KB)', async () => {
    const text = `select repeat('é😀x', 100000 + n), n from generate_series(1, 3) as n`;
    const rows = await copyRows(pool, text, [], [false, true]);
    expect(rows.map((r) => r[1])).toEqual([1, 2, 3]);
    for (const [v, n] of rows as [string, number][]) expect(v).toBe('é😀x'.repeat(100000 + n));
  });

  it('inlines parameters as literals: a quote or a placeholder in a value stays data', async () => {
    const tricky = "x'); drop table t; -- $1 \\ '";
    const rows = await copyRows(pool, 'select $1::text, $2::bigint, $1::text = $3::text', [tricky, 9_007_199_254_740_991, tricky], [false, true, false]);
    expect(rows).toEqual([[tricky, 9_007_199_254_740_991, 't']]);
    expect(() => literal(1.5)).toThrow();
    expect(() => literal(null)).toThrow();
    expect(literal("o'k")).toBe("'o''k'");
  });

  it('a query that fails half-way throws, and the pool still answers (its connection is not reused mid-COPY)', async () => {
    const failing = 'select 1 / (3 - n) from generate_series(1, 5) as n';
    await expect(copyRows(pool, failing, [], [true])).rejects.toThrow(/division by zero/);
    for (let i = 0; i < 3; i++) expect(await copyRows(pool, 'select 7', [], [true])).toEqual([[7]]);
  });

  it('undoes every escape COPY writes (octal and hex forms too)', () => {
    expect(unescapeCopyText('a\\\\b\\nc\\td\\r\\b\\f\\v')).toBe('a\\b\nc\td\r\b\f\v');
    expect(unescapeCopyText('\\101\\x42')).toBe('AB');
  });
});
