import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, sql, type Generated } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connection.js';
import { GroupCommitSqliteDialect } from '../../src/db/sqlite-driver.js';

/**
 * The SQLite driver's group commit (src/db/sqlite-driver.ts) and the checkpoint thread
 * (src/db/checkpoint-thread.ts), on real database files. SQLite only by nature: they run the same in
 * both suites.
 */
interface Scratch {
  items: { id: Generated<number>; name: string };
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fileDatabase() {
  const dir = mkdtempSync(join(tmpdir(), 'gw-group-'));
  dirs.push(dir);
  const path = join(dir, 'db.sqlite');
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.exec('create table items (id integer primary key, name text not null unique)');
  // Counts the COMMITs the driver issues (a statement it prepares once).
  let commits = 0;
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((text: string) => {
    const statement = prepare(text);
    if (text === 'commit') {
      const run = statement.run.bind(statement);
      Object.assign(statement, { run: (...args: unknown[]) => ((commits += 1), run(...(args as []))) });
    }
    return statement;
  }) as typeof sqlite.prepare;
  const db = new Kysely<Scratch>({ dialect: new GroupCommitSqliteDialect(sqlite, (text) => sqlite.prepare(text)) });
  // Another connection to the same file: it sees only what is committed.
  const observer = new SQLite(path, { readonly: true });
  const committed = (name: string) => observer.prepare('select count(*) as n from items where name = ?').get(name) as { n: number };
  return { db, sqlite, path, observer, committed: (name: string) => committed(name).n === 1, commits: () => commits };
}

describe('SQLite group commit', () => {
  it('answers each transaction only after its rows are committed, and commits concurrent transactions together', async () => {
    const { db, committed, commits, observer } = fileDatabase();
    const seenAtAnswer: boolean[] = [];
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        db
          .transaction()
          .execute(async (trx) => {
            await trx.insertInto('items').values({ name: `row-${i}` }).execute();
            await new Promise((resolve) => setImmediate(resolve));
            await trx.insertInto('items').values({ name: `row-${i}-b` }).execute();
          })
          .then(() => seenAtAnswer.push(committed(`row-${i}`) && committed(`row-${i}-b`))),
      ),
    );
    expect(seenAtAnswer).toHaveLength(40);
    expect(seenAtAnswer.every(Boolean)).toBe(true);
    // 40 transactions waiting on one connection: far fewer COMMITs than transactions.
    expect(commits()).toBeGreaterThan(0);
    expect(commits()).toBeLessThan(20);
    observer.close();
    await db.destroy();
  });

  it('commits the transactions of one event-loop turn together, though none waited for another, each answered after the COMMIT', async () => {
    const { db, committed, commits, observer } = fileDatabase();
    const before = commits();
    const answers = await Promise.all(
      // Twenty callbacks of one turn, as twenty requests read from their sockets in one poll:
      // each transaction runs to its end before the next callback starts.
      Array.from(
        { length: 20 },
        (_, i) =>
          new Promise<boolean>((resolve, reject) =>
            setImmediate(() =>
              db
                .transaction()
                .execute((trx) => trx.insertInto('items').values({ name: `turn-${i}` }).execute())
                .then(() => resolve(committed(`turn-${i}`)), reject),
            ),
          ),
      ),
    );
    expect(answers.every(Boolean)).toBe(true);
    expect(commits() - before).toBe(1);
    // A lone transaction still commits within a turn of the loop.
    await db.transaction().execute((trx) => trx.insertInto('items').values({ name: 'alone' }).execute());
    expect(committed('alone')).toBe(true);
    expect(commits() - before).toBe(2);
    observer.close();
    await db.destroy();
  });

  it('rolls back a failed transaction alone: the others of its group are kept', async () => {
    const { db, committed, observer } = fileDatabase();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        db.transaction().execute(async (trx) => {
          await trx.insertInto('items').values({ name: `kept-${i}` }).execute();
          if (i % 3 === 0) {
            await trx.insertInto('items').values({ name: `undone-${i}` }).execute();
            throw new Error(`transaction ${i} fails`);
          }
        }),
      ),
    );
    outcomes.forEach((outcome, i) => {
      expect(outcome.status, `transaction ${i}`).toBe(i % 3 === 0 ? 'rejected' : 'fulfilled');
      expect(committed(`kept-${i}`), `kept-${i}`).toBe(i % 3 !== 0);
      expect(committed(`undone-${i}`), `undone-${i}`).toBe(false);
    });
    // A unique violation fails the statement, not the group.
    await expect(db.transaction().execute((trx) => trx.insertInto('items').values({ name: 'kept-1' }).execute())).rejects.toThrow(/UNIQUE/);
    expect(committed('kept-1')).toBe(true);
    observer.close();
    await db.destroy();
  });

  it('fails every member of a group that SQLite rolled back as a whole, and keeps none of their rows', async () => {
    const { db, committed, observer } = fileDatabase();
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => trx.insertInto('items').values({ name: 'first' }).execute()),
      db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ name: 'second' }).execute();
        // What SQLite does by itself after some errors (a full disk): the whole transaction ends.
        await sql`rollback`.execute(trx);
        throw new Error('the disk is full');
      }),
      db.transaction().execute((trx) => trx.insertInto('items').values({ name: 'third' }).execute()),
    ]);
    expect(results[0].status).toBe('rejected');
    expect(results[1].status).toBe('rejected');
    expect(committed('first')).toBe(false);
    expect(committed('second')).toBe(false);
    // The next group starts afresh.
    expect(results[2].status).toBe('fulfilled');
    expect(committed('third')).toBe(true);
    await db.transaction().execute((trx) => trx.insertInto('items').values({ name: 'after' }).execute());
    expect(committed('after')).toBe(true);
    observer.close();
    await db.destroy();
  });

  it('fails a group that a plain statement made SQLite roll back, before the next user writes', async () => {
    const { db, committed, observer } = fileDatabase();
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => trx.insertInto('items').values({ name: 'lost' }).execute()),
      // Outside any transaction of Kysely's: SQLite ends the group's transaction, as a full disk would.
      sql`rollback`.execute(db),
      db.transaction().execute((trx) => trx.insertInto('items').values({ name: 'next' }).execute()),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect(committed('lost')).toBe(false);
    expect(committed('next')).toBe(true);
    observer.close();
    await db.destroy();
  });

  it('serves the connection first come, first served: a stream of queries does not starve a transaction', async () => {
    const { db, observer } = fileDatabase();
    const order: string[] = [];
    const holder = db.transaction().execute(async (trx) => {
      await trx.insertInto('items').values({ name: 'holder' }).execute();
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = [
      ...Array.from({ length: 5 }, (_, i) => db.selectFrom('items').select('id').execute().then(() => order.push(`read-${i}`))),
      db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ name: 'tx' }).execute();
        order.push('tx');
      }),
      ...Array.from({ length: 5 }, (_, i) => db.selectFrom('items').select('id').execute().then(() => order.push(`late-${i}`))),
    ];
    await Promise.all([holder, ...waiting]);
    // Group members are all answered at their COMMIT; the transaction ran in its turn, after the
    // five reads queued before it and before the five queued after.
    expect(order.indexOf('tx')).toBeLessThan(order.indexOf('late-0'));
    observer.close();
    await db.destroy();
  });
});

describe('SQLite connection settings', () => {
  it('keeps savepoint sub-journals in memory (no temporary file per transaction) and a grown log\'s blocks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-temp-'));
    dirs.push(dir);
    const database = await openDatabase(`sqlite:${join(dir, 'gateway.db')}`);
    try {
      // 2 = MEMORY; the default (0, a file) wrote each group member's sub-journal past 64 KB to disk.
      const { sqlite } = database.raw as { sqlite: SQLite.Database };
      expect(sqlite.pragma('temp_store', { simple: true })).toBe(2);
      // A log emptied by a checkpoint keeps up to 1 GiB of its blocks for the next writes: cut
      // back to 64 MB, each regrowth under load allocated blocks inside commits.
      expect(sqlite.pragma('journal_size_limit', { simple: true })).toBe(1_073_741_824);
    } finally {
      await database.close();
    }
  });
});

describe('SQLite checkpoints on their own thread', () => {
  it('copies the write-ahead log into the database file without any commit checkpointing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-ckpt-'));
    dirs.push(dir);
    const path = join(dir, 'gateway.db');
    const database = await openDatabase(`sqlite:${path}`);
    try {
      const before = statSync(path).size;
      // ~6 MB of rows, far below the main connection's backstop autocheckpoint (400 MB of log).
      await sql`create table filler (id integer primary key, body text)`.execute(database.db);
      for (let batch = 0; batch < 20; batch++) {
        await database.db.transaction().execute(async (trx) => {
          for (let i = 0; i < 30; i++) await sql`insert into filler (body) values (${'x'.repeat(10_000)})`.execute(trx);
        });
      }
      expect(statSync(`${path}-wal`).size).toBeGreaterThan(5_000_000);
      const deadline = Date.now() + 5_000;
      while (statSync(path).size < before + 5_000_000 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(statSync(path).size).toBeGreaterThan(before + 5_000_000);
    } finally {
      await database.close();
    }
  });
});
