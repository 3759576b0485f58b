import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/connection.js';
import type { SqliteReaders } from '../../src/db/sqlite-readers.js';

/**
 * SQLite reader threads (src/db/sqlite-readers.ts): their own read-only connections to the file,
 * real threads. Runs on every suite (it needs a SQLite file, not the suite's database).
 */
const SERIALIZERS = new URL('./reader-serializers.ts', import.meta.url).href;

describe('SQLite reader threads', () => {
  let dir: string;
  let database: Database;
  let readers: SqliteReaders;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-readers-'));
    database = await openDatabase(`sqlite:${join(dir, 'gateway.db')}`, { readerThreads: 2 });
    readers = database.readers!;
    await sql`create table pairs (n integer primary key, text text not null)`.execute(database.db);
  });
  afterAll(async () => {
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('start at the first read, not before', async () => {
    expect(readers.size).toBe(2);
    expect(readers.running).toBe(0);
    expect(await readers.column('select count(*) from pairs', [])).toEqual([0]);
    expect(readers.running).toBe(1);
  });

  it('see only what is committed: a transaction still open on the writer is invisible to them', async () => {
    let during: unknown[] = [];
    await database.db.transaction().execute(async (trx) => {
      await trx.insertInto('pairs' as never).values({ n: 1, text: 'one' } as never).execute();
      during = await readers.column('select count(*) from pairs', []);
    });
    expect(during).toEqual([0]);
    expect(await readers.column('select count(*) from pairs', [])).toEqual([1]);
  });

  it('are read-only', async () => {
    await expect(readers.column('insert into pairs (n, text) values (99, ?) returning n', ['no'])).rejects.toThrow('SQLite reader: attempt to write a readonly database');
    expect(await readers.column('select count(*) from pairs where n = 99', [])).toEqual([0]);
  });

  it('answer a failing statement with its error, and keep answering', async () => {
    await expect(readers.column('select * from no_such_table', [])).rejects.toThrow('SQLite reader: no such table: no_such_table');
    expect(await readers.column("select n || ':' || text from pairs", [])).toEqual(['1:one']);
  });

  it('make a page JSON with the serializer named by module and export, cut in Buffers of ~64 KB', async () => {
    const rows = Array.from({ length: 3_000 }, (_, i) => ({ n: i + 10, text: `${'x'.repeat(40)} "${i}" é` }));
    for (let i = 0; i < rows.length; i += 500) await database.db.insertInto('pairs' as never).values(rows.slice(i, i + 500) as never).execute();
    const page = await readers.json('select n, text from pairs where n >= ? order by n', [10], { module: SERIALIZERS, name: 'pairJson' });
    expect(page.count).toBe(3_000);
    expect(page.chunks.length).toBeGreaterThan(1);
    expect(page.chunks.every((c) => c.length <= 70 * 1024)).toBe(true);
    expect(Buffer.concat(page.chunks).toString()).toBe(rows.map((r) => JSON.stringify(r)).join(','));
    await expect(readers.json('select n from pairs', [], { module: SERIALIZERS, name: 'nothing' })).rejects.toThrow(/has no function nothing/);
  });

  it('share the work: reads asked at once go to different threads', async () => {
    await Promise.all([1, 2, 3, 4].map(() => readers.column('select count(*) from pairs a, pairs b where a.n < 300 and b.n < 300', [])));
    expect(readers.running).toBe(2);
  });

  it('a thread that dies fails the reads it held, and the next read starts a new one', async () => {
    await expect(readers.json('select n, text from pairs', [], { module: SERIALIZERS, name: 'exitThread' })).rejects.toThrow(/exited \(code 3\)/);
    expect(await readers.column('select count(*) from pairs', [])).toEqual([3_001]);
  });

  it('stop with the database, and an in-memory database has none', async () => {
    await readers.stop();
    expect(readers.running).toBe(0);
    const memory = await openDatabase('sqlite::memory:', { readerThreads: 2 });
    expect(memory.readers).toBeUndefined();
    await memory.close();
    const none = await openDatabase(`sqlite:${join(dir, 'other.db')}`, { readerThreads: 0 });
    expect(none.readers).toBeUndefined();
    await none.close();
  });
});
