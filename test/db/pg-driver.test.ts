import { Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import pg from 'pg';
import { insertRows, prepared } from '../../src/db/prepared.js';
import { readAhead, sendHeld } from '../../src/db/pg-driver.js';
import { KEEPER_MIN_ROWS, resetStatisticsGates, startStatisticsKeeper, watchStatistics } from '../../src/db/statistics-gate.js';
import { freshDatabase, testDialect, type TestDatabase } from '../support/database.js';

/**
 * Held writes (src/db/pg-driver.ts): on PostgreSQL an insert of `insertRows` inside a
 * transaction goes out with the transaction's next statement. What a caller sees must not
 * change: the same rows, the same failures, the same rollbacks, on both engines; only the
 * number of round trips does (counted on PostgreSQL).
 */
describe(`held writes in a transaction (${testDialect})`, () => {
  let database: TestDatabase;
  const db = () => database.db;
  const insert = (executor: Parameters<typeof insertRows>[0], table: string, rows: object[]) => insertRows(executor, table as never, rows as never);
  const count = async (table: string) => Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db())).rows[0].n);

  /**
   * The SQL of every statement sent to PostgreSQL from now on, and the writes to its sockets
   * (`flights`: one per round trip, however many statements it carried). None on SQLite.
   */
  let sent: string[] = [];
  let flights = 0;
  let restore: (() => void) | undefined;
  function countStatements() {
    sent = [];
    flights = 0;
    const original = pg.Client.prototype.query;
    (pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
      const q = args[0] as string | { text: string };
      sent.push(typeof q === 'string' ? q : q.text);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
    const socket = Socket.prototype as unknown as Record<'_write' | '_writev', (...a: unknown[]) => unknown>;
    const write = socket._write;
    const writev = socket._writev;
    socket._write = function (this: Socket, ...args: unknown[]) {
      flights += 1;
      return write.apply(this, args);
    };
    socket._writev = function (this: Socket, ...args: unknown[]) {
      flights += 1;
      return writev.apply(this, args);
    };
    restore = () => {
      pg.Client.prototype.query = original;
      socket._write = write;
      socket._writev = writev;
    };
  }

  /** Every query handed to node-postgres from now on, with its name when it went out named. */
  function recordQueries(): { name?: string; text: string }[] {
    const queries: { name?: string; text: string }[] = [];
    const original = pg.Client.prototype.query;
    (pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
      queries.push(typeof args[0] === 'string' ? { text: args[0] } : (args[0] as { name?: string; text: string }));
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
    restore = () => {
      pg.Client.prototype.query = original;
    };
    return queries;
  }

  beforeAll(async () => {
    database = await freshDatabase({ migrate: false });
    await sql`create table wb_items (id text primary key, n integer not null)`.execute(db());
    await sql`create table wb_other (id text primary key)`.execute(db());
    await sql`create table wb_third (id text primary key, k integer not null)`.execute(db());
  });
  beforeEach(async () => {
    await sql`delete from wb_items`.execute(db());
    await sql`delete from wb_other`.execute(db());
    await sql`delete from wb_third`.execute(db());
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
        await insert(trx, 'wb_other', [{ id: 'y' }]);
        return (await sql<{ id: string }>`select id from wb_items`.execute(trx)).rows.length + (await sql<{ id: string }>`select id from wb_other order by id`.execute(trx)).rows.length;
      });
    restore!();
    expect(other).toBe(3);
    expect(await count('wb_items')).toBe(1);
    if (testDialect === 'postgres') {
      // The read of wb_items cannot carry its own table's insert: BEGIN, both inserts (one
      // statement, two tables) and the read go out together; the second read; COMMIT.
      expect(sent.map((s) => s.slice(0, 30))).toEqual(['begin', 'with w0 as (insert into "wb_it', 'select id from wb_items', 'select id from wb_other order ', 'commit']);
      expect(sent[1]).toMatch(/^with w0 as \(insert into "wb_items".*\), w1 as \(insert into "wb_other".*\) select 1$/);
      expect(flights).toBe(3);
    }
  });

  it('a read of another table carries the held inserts as WITH items of itself', async () => {
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
    if (testDialect === 'postgres') {
      // Two inserts into one table stay two statements (their order holds); the second rides the read.
      expect(sent.map((s) => s.slice(0, 22))).toEqual(['begin', 'insert into "wb_items"', 'with w0 as (insert int', 'commit']);
      expect(sent[2]).toMatch(/^with w0 as \(insert into "wb_items".*\) select id from wb_other$/);
      expect(flights).toBe(2);
    }
  });

  it('held inserts into one table run in the order they were made (ids ascend, the first of one key wins)', async () => {
    await sql`create table wb_seq (seq integer generated by default as identity primary key, k text unique, v text)`.execute(db()).catch(async () => {
      // SQLite: an integer primary key is its rowid, assigned in insert order.
      await sql`create table wb_seq (seq integer primary key, k text unique, v text)`.execute(db());
    });
    const upsert = prepared<{ k: string; v: string }, never>((qb, v) => (qb as any).insertInto('wb_seq').values({ k: v('k'), v: v('v') }).onConflict((oc: any) => oc.column('k').doNothing()), { writeBehind: true });
    countStatements();
    await db()
      .transaction()
      .execute(async (trx) => {
        for (const [k, v] of [['a', 'first'], ['b', 'second'], ['a', 'late'], ['c', 'third']]) await upsert.execute(trx, { k, v });
        await insert(trx, 'wb_items', [{ id: 'x', n: 1 }]);
      });
    restore!();
    expect((await sql<{ k: string; v: string }>`select k, v from wb_seq order by seq`.execute(db())).rows).toEqual([
      { k: 'a', v: 'first' },
      { k: 'b', v: 'second' },
      { k: 'c', v: 'third' },
    ]);
    // Four statements into one table and one into another, with BEGIN and COMMIT: one flight.
    if (testDialect === 'postgres') expect(flights).toBe(1);
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
    if (testDialect === 'postgres') {
      expect(sent.map((s) => s.slice(0, 25))).toEqual(['begin', 'insert into "wb_items" ("', 'select count(*) as n from', 'commit']);
      expect(flights).toBe(2);
    }
  });

  it('a transaction of held inserts only is one round trip: begin, the inserts as one statement, commit', async () => {
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
    if (testDialect === 'postgres') {
      expect(sent.map((s) => s.slice(0, 12))).toEqual(['begin', 'with w0 as (', 'commit']);
      expect(flights).toBe(1);
    }
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

  it('a transaction that throws before sending anything sends nothing at all (not even BEGIN)', async () => {
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
    if (testDialect === 'postgres') expect(sent).toEqual([]);
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
    expect(flights).toBe(2);
    expect(await count('wb_items')).toBe(1);
  });

  it('after a commit that failed on a held write, the same connection serves the next transaction', async () => {
    const single = await freshDatabase({ migrate: false, poolSize: 1 });
    try {
      await sql`create table wb_one (id text primary key)`.execute(single.db);
      await insert(single.db, 'wb_one', [{ id: 'dup' }]);
      const failing = single.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        await insert(trx, 'wb_one', [{ id: 'dup' }]);
      });
      await expect(failing).rejects.toThrow(/unique|duplicate/i);
      await single.db.transaction().execute(async (trx) => {
        await insert(trx, 'wb_one', [{ id: 'next' }]);
      });
      expect((await sql<{ id: string }>`select id from wb_one order by id`.execute(single.db)).rows).toEqual([{ id: 'dup' }, { id: 'next' }]);
    } finally {
      await single.close();
    }
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
    const queries = recordQueries();
    for (const query of [byKey, star, planned]) await query.execute(db(), { id: 'a' });
    const names = queries.map((q) => q.name);
    expect(names[0]).toMatch(/^gw\d+$/);
    expect(names.slice(1)).toEqual([undefined, undefined]);
  });

  it.runIf(testDialect === 'postgres')('the same held writes and carrier make one statement text, kept and named, whatever the values', async () => {
    const byKey = prepared<{ id: string }, { n: number }>((qb, v) => (qb as any).selectFrom('wb_items').select('n').where('id', '=', v('id')));
    await insert(db(), 'wb_items', [{ id: 'a', n: 7 }]);
    const sentNamed = recordQueries();
    const pay = (i: number, rows: number) =>
      db()
        .transaction()
        .execute(async (trx) => {
          await insert(trx, 'wb_other', Array.from({ length: rows }, (_, r) => ({ id: `o${i}.${r}` })));
          await insert(trx, 'wb_third', [{ id: `t${i}`, k: i }]);
          return byKey.first(trx, { id: 'a' });
        });
    // Twice with one row, then with two: the memo is keyed by the parts' texts, so the
    // renumbered placeholders follow each part's own parameter count.
    expect(await pay(1, 1)).toEqual({ n: 7 });
    expect(await pay(2, 1)).toEqual({ n: 7 });
    expect(await pay(3, 2)).toEqual({ n: 7 });
    restore!();
    const carried = sentNamed.filter((q) => q.text.startsWith('with '));
    expect(carried).toHaveLength(3);
    expect(carried[1].text).toBe(carried[0].text);
    expect(carried[0].name).toMatch(/^gw\d+$/);
    expect(carried[1].name).toBe(carried[0].name);
    expect(carried[2].text).not.toBe(carried[0].text);
    expect(carried[2].name).toMatch(/^gw\d+$/);
    expect(carried[2].name).not.toBe(carried[0].name);
    // Each value landed in its own column of its own row.
    expect((await sql<{ id: string }>`select id from wb_other where id like 'o%' order by id`.execute(db())).rows.map((r) => r.id)).toEqual(['o1.0', 'o2.0', 'o3.0', 'o3.1']);
    expect((await sql<{ id: string; k: number }>`select id, k from wb_third order by id`.execute(db())).rows).toEqual([
      { id: 't1', k: 1 },
      { id: 't2', k: 2 },
      { id: 't3', k: 3 },
    ]);
  });

  it.runIf(testDialect === 'postgres')('a named statement that fails rejects with PostgreSQL\'s error and leaves its connection in step', async () => {
    const put = prepared<{ id: string; n: number }, never>((qb, v) => (qb as any).insertInto('wb_items').values({ id: v('id'), n: v('n') }));
    const byKey = prepared<{ id: string }, { n: number }>((qb, v) => (qb as any).selectFrom('wb_items').select('n').where('id', '=', v('id')));
    await put.execute(db(), { id: 'dup', n: 1 });
    const failure = await put.execute(db(), { id: 'dup', n: 2 }).then(
      () => undefined,
      (error: unknown) => error as Error & { code?: string },
    );
    expect(failure).toBeInstanceOf(Error);
    expect(failure?.code).toBe('23505');
    // A named statement that failed inside a transaction fails it; the pool's connections go on serving.
    await expect(db().transaction().execute((trx) => put.execute(trx, { id: 'dup', n: 3 }))).rejects.toMatchObject({ code: '23505' });
    for (let i = 0; i < 4; i++) expect(await byKey.first(db(), { id: 'dup' })).toEqual({ n: 1 });
  });

  it.runIf(testDialect === 'postgres')('a statement planned per call until its table has statistics is sent named once it has', async () => {
    resetStatisticsGates();
    const gated = prepared<{ id: string }, { n: number }>((qb, v) => (qb as any).selectFrom('wb_items').select(['n', 'id']).where('id', '=', v('id')), { planEachCall: { untilAnalyzed: 'wb_items' } });
    const sent = recordQueries();
    await insert(db(), 'wb_items', [{ id: 'a', n: 1 }]);
    sent.length = 0;
    // Never analyzed: unnamed, and the catalog is asked once, not on every call.
    for (let i = 0; i < 5; i++) expect((await gated.first(db(), { id: 'a' }))?.n).toBe(1);
    const runs = sent.filter((q) => q.text.includes('"wb_items"'));
    expect(runs).toHaveLength(5);
    expect(runs.every((q) => q.name === undefined)).toBe(true);
    expect(sent.filter((q) => q.text.includes('pg_stats'))).toHaveLength(1);
    // Analyzed: the next check opens the gate and the statement goes out named.
    await sql`analyze wb_items`.execute(db());
    resetStatisticsGates();
    sent.length = 0;
    for (let i = 0; i < 3; i++) expect((await gated.first(db(), { id: 'a' }))?.n).toBe(1);
    const named = sent.filter((q) => q.text.includes('"wb_items"'));
    expect(named).toHaveLength(3);
    expect(named.every((q) => /^gw\d+$/.test(q.name ?? ''))).toBe(true);
  });

  it('a read ahead goes out with the next statement, sees the writes held before it, and gets its own answer', async () => {
    const byId = prepared<{ id: string }, { n: number }>((qb, v) => (qb as any).selectFrom('wb_items').select('n').where('id', '=', v('id')));
    countStatements();
    const [early, late, other] = await db()
      .transaction()
      .execute(async (trx) => {
        const early = byId.readAhead(trx, { id: 'a' });
        await insert(trx, 'wb_items', [{ id: 'a', n: 7 }]);
        const late = byId.readAhead(trx, { id: 'a' });
        const other = (await sql<{ id: string }>`select id from wb_other`.execute(trx)).rows;
        return [(await early).rows, (await late).rows, other];
      });
    restore!();
    // In order: the first read ran before the insert, the second after it.
    expect(early).toEqual([]);
    expect(late.map((r) => Number(r.n))).toEqual([7]);
    expect(other).toEqual([{ id: 'x' }]);
    if (testDialect === 'postgres') {
      expect(sent.map((q) => q.slice(0, 24))).toEqual(['begin', 'select "n" from "wb_item', 'insert into "wb_items" (', 'select "n" from "wb_item', 'select id from wb_other', 'commit']);
      // BEGIN, both reads, the insert and the carrier in one round trip; COMMIT in another.
      expect(flights).toBe(2);
    }
  });

  it('a read ahead is held once `queued` settles, and sendHeld sends it when no statement of its own follows', async () => {
    const byId = prepared<{ id: string }, { n: number }>((qb, v) => (qb as any).selectFrom('wb_items').select('n').where('id', '=', v('id')));
    await sql`insert into wb_items (id, n) values ('a', 3)`.execute(db());
    countStatements();
    const answer = await db()
      .transaction()
      .execute(async (trx) => {
        const read = byId.readAhead(trx, { id: 'a' });
        await read.queued;
        // Held (PostgreSQL) or already run (SQLite): nothing more was asked for it.
        if (testDialect === 'postgres') expect(sent).toEqual([]);
        await sendHeld(trx);
        await sendHeld(trx); // nothing held: nothing sent
        return (await read).rows;
      });
    restore!();
    expect(answer.map((r) => Number(r.n))).toEqual([3]);
    if (testDialect === 'postgres') {
      expect(sent.map((q) => q.slice(0, 24))).toEqual(['begin', 'select "n" from "wb_item', 'commit']);
      expect(flights).toBe(2);
    }
    // A statement behind a statistics gate is not read ahead (the gate's own read would come first).
    const gated = prepared<{ id: string }, { n: number }>((qb, v) => (qb as any).selectFrom('wb_items').select('n').where('id', '=', v('id')), { planEachCall: { untilAnalyzed: 'wb_items' } });
    if (testDialect === 'postgres') expect(() => gated.readAhead(db(), { id: 'a' })).toThrow(/statistics gate/);
  });

  it('a read ahead runs at once outside a transaction, and rejects when its transaction ends first or its batch fails', async () => {
    await sql`insert into wb_items (id, n) values ('a', 1)`.execute(db());
    const byId = prepared<{ id: string }, { n: number }>((qb, v) => (qb as any).selectFrom('wb_items').select('n').where('id', '=', v('id')));
    expect((await byId.readAhead(db(), { id: 'a' })).rows.map((r) => Number(r.n))).toEqual([1]);
    // Rolled back before anything went out: the held read never ran.
    let held: Promise<unknown> | undefined;
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          held = byId.readAhead(trx, { id: 'a' });
          throw new Error('changed my mind');
        }),
    ).rejects.toThrow('changed my mind');
    if (testDialect === 'postgres') await expect(held).rejects.toThrow(/rolled back before this read was sent/);
    else expect(((await held) as { rows: unknown[] }).rows).toHaveLength(1);
    // A read that fails fails its own promise, and on PostgreSQL the statement it went out with
    // (SQLite ran it at once, alone).
    const broken = CompiledQuery.raw('select no_such_column from wb_items', []);
    let failing: Promise<unknown> | undefined;
    const transaction = db()
      .transaction()
      .execute(async (trx) => {
        failing = readAhead(trx, broken);
        failing.catch(() => {});
        await sql`select 1`.execute(trx);
      });
    if (testDialect === 'postgres') await expect(transaction).rejects.toThrow(/no_such_column/);
    else await transaction;
    await expect(failing).rejects.toThrow(/no_such_column/);
  });

  it('a read ahead its caller never reads (its transaction rolled back first) is no unhandled rejection', async () => {
    const byId = prepared<{ id: string }, { n: number }>((qb, v) => (qb as any).selectFrom('wb_items').select('n').where('id', '=', v('id')));
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      await expect(
        db()
          .transaction()
          .execute(async (trx) => {
            byId.readAhead(trx, { id: 'a' });
            byId.firstAhead(trx, { id: 'a' });
            throw new Error('changed my mind');
          }),
      ).rejects.toThrow('changed my mind');
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off('unhandledRejection', listener);
    }
    expect(unhandled).toEqual([]);
  });

  it.runIf(testDialect === 'postgres')('the statistics keeper analyzes a watched table once it holds enough rows, not before', async () => {
    await sql`create table wb_kept (id integer primary key, v text not null)`.execute(db());
    await sql`create index wb_kept_v on wb_kept (v)`.execute(db());
    watchStatistics('wb_kept');
    const analyzed = async () => (await sql<{ n: number }>`select count(*)::int as n from pg_stats where schemaname = current_schema() and tablename = 'wb_kept'`.execute(db())).rows[0].n > 0;
    const keeper = startStatisticsKeeper(db(), 60_000);
    try {
      await sql`insert into wb_kept select g, 'v' || (g % 7) from generate_series(1, ${KEEPER_MIN_ROWS - 1}) g`.execute(db());
      await keeper.pass();
      expect(await analyzed()).toBe(false);
      await sql`insert into wb_kept values (${KEEPER_MIN_ROWS}, 'last')`.execute(db());
      await keeper.pass();
      expect(await analyzed()).toBe(true);
      // Done with it: a later pass does not analyze it again (autovacuum keeps its statistics).
      const before = (await sql<{ n: number }>`select analyze_count::int as n from pg_stat_user_tables where relname = 'wb_kept' and schemaname = current_schema()`.execute(db())).rows[0].n;
      await keeper.pass();
      const after = (await sql<{ n: number }>`select analyze_count::int as n from pg_stat_user_tables where relname = 'wb_kept' and schemaname = current_schema()`.execute(db())).rows[0].n;
      expect(after).toBe(before);
    } finally {
      keeper.stop();
    }
  });
});
