import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { insertRows, prepared } from '../../src/db/prepared.js';
import { freshDatabase, testDialect, type TestDatabase } from '../support/database.js';

/**
 * Held writes (src/db/pg-write-behind.ts): on PostgreSQL an insert of `insertRows` inside a
 * transaction goes out with the transaction's next statement. What a caller sees must not
 * change: the same rows, the same failures, the same rollbacks, on both engines; only the
 * number of round trips does (counted on PostgreSQL).
 */
describe(`held writes in a transaction (${testDialect})`, () => {
  let database: TestDatabase;
  const db = () => database.db;
  const insert = (executor: Parameters<typeof insertRows>[0], table: string, rows: object[]) => insertRows(executor, table as never, rows as never);
  const count = async (table: string) => Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db())).rows[0].n);

  /** The SQL of every statement sent to PostgreSQL from now on (none are counted on SQLite). */
  let sent: string[] = [];
  let restore: (() => void) | undefined;
  function countStatements() {
    sent = [];
    const original = pg.Client.prototype.query;
    (pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
      const q = args[0] as string | { text: string };
      sent.push(typeof q === 'string' ? q : q.text);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
    restore = () => {
      pg.Client.prototype.query = original;
    };
  }

  beforeAll(async () => {
    database = await freshDatabase({ migrate: false });
    await sql`create table wb_items (id text primary key, n integer not null)`.execute(db());
    await sql`create table wb_other (id text primary key)`.execute(db());
  });
  beforeEach(async () => {
    await sql`delete from wb_items`.execute(db());
    await sql`delete from wb_other`.execute(db());
    await sql`insert into wb_other (id) values ('x')`.execute(db());
  });
  afterEach(() => {
    restore?.();
    restore = undefined;
  });
  afterAll(() => database.close());

  it('held inserts go out with the next statement of another table, and commit with it', async () => {
    countStatements();
    const other = await db()
      .transaction()
      .execute(async (trx) => {
        await insert(trx, 'wb_items', [{ id: 'a', n: 1 }]);
        await insert(trx, 'wb_items', [
          { id: 'b', n: 2 },
          { id: 'c', n: 3 },
        ]);
        return (await sql<{ id: string }>`select id from wb_other`.execute(trx)).rows;
      });
    restore!();
    expect(other).toEqual([{ id: 'x' }]);
    expect(await count('wb_items')).toBe(3);
    // begin, the read carrying both inserts, commit: three round trips where there were five.
    if (testDialect === 'postgres') {
      expect(sent).toHaveLength(3);
      expect(sent[1]).toMatch(/^with w0 as \(insert into "wb_items".*\), w1 as \(insert into "wb_items".*\) select id from wb_other$/);
    }
  });

  it('a statement on a held table sees the held rows (they are sent first)', async () => {
    countStatements();
    const seen = await db()
      .transaction()
      .execute(async (trx) => {
        await insert(trx, 'wb_items', [{ id: 'a', n: 1 }]);
        return Number((await sql<{ n: number }>`select count(*) as n from wb_items`.execute(trx)).rows[0].n);
      });
    restore!();
    expect(seen).toBe(1);
    if (testDialect === 'postgres') expect(sent.map((s) => s.slice(0, 25))).toEqual(['begin', 'insert into "wb_items" ("', 'select count(*) as n from', 'commit']);
  });

  it('held inserts left at the end are sent before COMMIT, as one statement', async () => {
    countStatements();
    await db()
      .transaction()
      .execute(async (trx) => {
        await insert(trx, 'wb_items', [{ id: 'a', n: 1 }]);
        await insert(trx, 'wb_other', [{ id: 'y' }]);
      });
    restore!();
    expect(await count('wb_items')).toBe(1);
    expect(await count('wb_other')).toBe(2);
    if (testDialect === 'postgres') expect(sent.map((s) => s.slice(0, 12))).toEqual(['begin', 'with w0 as (', 'commit']);
  });

  it('a held insert that fails fails the transaction, and everything before it is rolled back', async () => {
    await insert(db(), 'wb_items', [{ id: 'dup', n: 0 }]);
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          await sql`insert into wb_other (id) values ('before')`.execute(trx);
          await insert(trx, 'wb_items', [{ id: 'fresh', n: 1 }]);
          await insert(trx, 'wb_items', [{ id: 'dup', n: 2 }]);
        }),
    ).rejects.toThrow(/unique|duplicate/i);
    expect(await count('wb_other')).toBe(1);
    expect((await sql<{ id: string; n: number }>`select id, n from wb_items`.execute(db())).rows).toEqual([{ id: 'dup', n: 0 }]);
  });

  it('a failing held insert fails the statement it went out with', async () => {
    await insert(db(), 'wb_items', [{ id: 'dup', n: 0 }]);
    let reached = false;
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          await insert(trx, 'wb_items', [{ id: 'dup', n: 2 }]);
          await sql`select id from wb_other`.execute(trx);
          reached = true;
        }),
    ).rejects.toThrow(/unique|duplicate/i);
    // SQLite runs each insert at once and fails there; PostgreSQL fails the read that carried it.
    expect(reached).toBe(false);
    expect(await count('wb_items')).toBe(1);
  });

  it('a transaction that throws never sends what it held', async () => {
    countStatements();
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          await insert(trx, 'wb_items', [{ id: 'a', n: 1 }]);
          throw new Error('changed my mind');
        }),
    ).rejects.toThrow('changed my mind');
    restore!();
    expect(await count('wb_items')).toBe(0);
    if (testDialect === 'postgres') expect(sent).toEqual(['begin', 'rollback']);
  });

  it('outside a transaction nothing is held', async () => {
    countStatements();
    await insert(db(), 'wb_items', [{ id: 'a', n: 1 }]);
    restore!();
    if (testDialect === 'postgres') expect(sent).toHaveLength(1);
    expect(await count('wb_items')).toBe(1);
  });

  it.runIf(testDialect === 'postgres')('a locking read never carries held writes', async () => {
    countStatements();
    await db()
      .transaction()
      .execute(async (trx) => {
        await insert(trx, 'wb_items', [{ id: 'a', n: 1 }]);
        await sql`select id from wb_other for update`.execute(trx);
      });
    restore!();
    expect(sent.map((s) => s.slice(0, 20))).toEqual(['begin', 'insert into "wb_item', 'select id from wb_ot', 'commit']);
    expect(await count('wb_items')).toBe(1);
  });

  it.runIf(testDialect === 'postgres')('a savepoint rolled back to drops what was held after it', async () => {
    const trx = await db().startTransaction().execute();
    await insert(trx, 'wb_items', [{ id: 'kept', n: 1 }]);
    const sp = await trx.savepoint('sp').execute();
    await insert(sp, 'wb_items', [{ id: 'dropped', n: 2 }]);
    const back = await sp.rollbackToSavepoint('sp').execute();
    await back.commit().execute();
    expect((await sql<{ id: string }>`select id from wb_items`.execute(db())).rows).toEqual([{ id: 'kept' }]);
  });

  it.runIf(testDialect === 'postgres')('statements built once are sent named; a select of * and a per-call plan are not', async () => {
    const byKey = prepared<{ id: string }, { n: number }>((qb, v) => (qb as any).selectFrom('wb_items').select('n').where('id', '=', v('id')));
    const star = prepared<{ id: string }, { n: number }>((qb, v) => (qb as any).selectFrom('wb_items').selectAll().where('id', '=', v('id')));
    const planned = prepared<{ id: string }, { n: number }>((qb, v) => (qb as any).selectFrom('wb_items').select('id').where('id', '=', v('id')), { planEachCall: true });
    const names: (string | undefined)[] = [];
    const original = pg.Client.prototype.query;
    (pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
      names.push(typeof args[0] === 'string' ? undefined : (args[0] as { name?: string }).name);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
    restore = () => {
      pg.Client.prototype.query = original;
    };
    for (const query of [byKey, star, planned]) await query.execute(db(), { id: 'a' });
    expect(names[0]).toMatch(/^gw\d+$/);
    expect(names.slice(1)).toEqual([undefined, undefined]);
  });
});
