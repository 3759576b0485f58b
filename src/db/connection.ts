import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, sql, type Transaction } from 'kysely';
import type { DB } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  /** PostgreSQL schema in use, when not the default search path. */
  schema?: string;
  close(): Promise<void>;
}

/** A Kysely handle that is either the database or an open transaction. */
export type Executor = Kysely<DB> | Transaction<DB>;

// int8 (counts, money in minor units) as JS numbers: every value we store is far below 2^53.
pg.types.setTypeParser(20, (value: string) => Number(value));

export interface OpenOptions {
  /** PostgreSQL only: use (and create) this schema, so each test file gets its own. */
  schema?: string;
  /** PostgreSQL pool size. */
  poolSize?: number;
}

export async function openDatabase(url: string, options: OpenOptions = {}): Promise<Database> {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    return openPostgres(url, options);
  }
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length));
  throw new Error(`DATABASE_URL must start with sqlite: or postgres://, got "${url.split(':')[0]}:..."`);
}

function openSqlite(path: string): Database {
  const memory = path === ':memory:' || path === '';
  if (!memory) mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(memory ? ':memory:' : path);
  if (!memory) sqlite.pragma('journal_mode = WAL');
  // NORMAL is durable across process crashes in WAL mode; only an OS crash can lose the last commits.
  sqlite.pragma('synchronous = NORMAL');
  // Commits in WAL mode do not sync; checkpoints do. At the default (every 1,000 pages, 4 MB)
  // a write-heavy run (a billing run: ~5 commits per charge) spent most of each commit's cost
  // in checkpoint fsyncs; every 10,000 pages (40 MB of WAL) makes them ten times rarer.
  sqlite.pragma('wal_autocheckpoint = 10000');
  // 32 MB of page cache (default 2 MB): the indexes a payment touches stay in memory.
  sqlite.pragma('cache_size = -32768');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // Reads of large result sets (listings, searches) go through the page cache without copies.
  if (!memory) sqlite.pragma('mmap_size = 268435456');
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

/**
 * Kysely prepares every query afresh; preparing costs more than running most of ours. The
 * SQL text of a query builder is stable, so prepared statements are kept by text (bounded).
 * A statement still busy iterating (a streamed result) is never handed out twice.
 */
function withStatementCache(sqlite: SQLite.Database, limit = 500) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string): SQLite.Statement {
      const cached = cache.get(text);
      if (cached && !cached.busy) return cached;
      const statement = sqlite.prepare(text);
      if (!cached) {
        if (cache.size >= limit) cache.delete(cache.keys().next().value!);
        cache.set(text, statement);
      }
      return statement;
    },
  };
}

async function openPostgres(url: string, options: OpenOptions): Promise<Database> {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error('invalid schema name');
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 20,
    options: schema ? `-c search_path=${schema}` : undefined,
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  return { db, dialect: 'postgres', schema, close: () => db.destroy() };
}
