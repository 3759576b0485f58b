import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { insertRows, prepared } from '../../src/db/prepared.js';
import { freshDatabase, testDialect, type TestDatabase } from '../support/database.js';

/**
 * Queries compiled once (src/db/prepared.ts): each call's parameters are read by generated code
 * from the values (or, for insertRows, the rows). What a caller sees must be what Kysely's own
 * query would do with the same values, on both engines.
 */
describe(`prepared queries (${testDialect})`, () => {
  let database: TestDatabase;
  const db = () => database.db as any;
  beforeAll(async () => {
    database = await freshDatabase({ migrate: false });
    await sql`create table pq_items (id text primary key, kind text not null, n integer not null, note text default 'none', "odd ""name" text)`.execute(database.db);
  });
  afterAll(() => database.close());

  const insert = (rows: object[]) => insertRows(database.db, 'pq_items' as never, rows as never);
  const all = async () => (await sql<Record<string, unknown>>`select * from pq_items order by id`.execute(database.db)).rows.map((r): Record<string, unknown> => ({ ...r, n: Number(r.n) }));

  it('fills each named slot from its value and keeps the query\'s own constants', async () => {
    await insert([
      { id: 'a', kind: 'card', n: 1 },
      { id: 'b', kind: 'card', n: 2 },
      { id: 'c', kind: 'ip', n: 3 },
    ]);
    // 'card' is a constant of the query; min is a slot, used twice.
    const query = prepared<{ min: number }, { id: string }>((qb, v) => (qb as any).selectFrom('pq_items').select('id').where('kind', '=', 'card').where('n', '>=', v('min')).where('n', '<', sql`${v('min')} + 1`).orderBy('id'));
    expect((await query.execute(db(), { min: 2 })).rows).toEqual([{ id: 'b' }]);
    expect((await query.execute(db(), { min: 1 })).rows).toEqual([{ id: 'a' }]);
    expect(await query.first(db(), { min: 3 })).toBeUndefined();
  });

  it('refuses a call that leaves a slot without a value, naming the slot, and runs nothing', async () => {
    const query = prepared<{ id: string; kind: string }, never>((qb, v) => (qb as any).insertInto('pq_items').values({ id: v('id'), kind: v('kind'), n: 9 }));
    await expect(async () => query.execute(db(), { id: 'z' } as never)).rejects.toThrow('prepared query: no value for "kind"');
    expect((await all()).map((r) => r.id)).not.toContain('z');
  });

  it('insertRows writes one row or many, leaves undefined columns to their default, and quotes odd column names', async () => {
    await insert([{ id: 'd', kind: 'doc', n: 4, note: undefined, 'odd "name': 'x"y' }]);
    await insert([
      { id: 'e', kind: 'doc', n: 5, note: null },
      { id: 'f', kind: 'doc', n: 6, note: 'kept' },
    ]);
    const rows = await all();
    expect(rows.find((r) => r.id === 'd')).toMatchObject({ note: 'none', 'odd "name': 'x"y' });
    expect(rows.find((r) => r.id === 'e')).toMatchObject({ n: 5, note: null });
    expect(rows.find((r) => r.id === 'f')).toMatchObject({ n: 6, note: 'kept' });
  });

  it("insertRows with rows of different shapes gives each row its own columns, as Kysely's insert does", async () => {
    await insert([
      { id: 'g', kind: 'ip', n: 7, note: 'given' },
      { id: 'h', kind: 'ip', n: 8 },
    ]);
    // The same column set in another order, then the shape of the first call again: each keeps its values.
    await insert([{ n: 10, kind: 'ip', id: 'i' }]);
    await insert([{ id: 'j', kind: 'ip', n: 11, note: 'given' }]);
    const rows = await all();
    expect(rows.filter((r) => ['g', 'h', 'i', 'j'].includes(r.id as string)).map((r) => [r.id, r.n, r.note])).toEqual([
      ['g', 7, 'given'],
      // Kysely fills the gap with DEFAULT on PostgreSQL; SQLite has no DEFAULT in VALUES, so NULL.
      ['h', 8, testDialect === 'postgres' ? 'none' : null],
      ['i', 10, 'none'],
      ['j', 11, 'given'],
    ]);
  });
});
