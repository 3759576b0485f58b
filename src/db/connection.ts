import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import type pg from 'pg';
import { Kysely, PostgresDialect, sql, type LogConfig, type Transaction } from 'kysely';
import { GroupCommitSqliteDialect } from './sqlite-driver.js';
import { ReadReplica } from './read-replica.js';
import { openPostgresPool, type PostgresPoolStats } from './postgres.js';
import type { DB } from './schema.js';
import { DEFAULT_DATABASE_SETTINGS, type DatabaseSettings } from './timeouts.js';
import { startThread } from '../threads.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  /** PostgreSQL schema in use, when not the default search path. */
  schema?: string;
  /** PostgreSQL: the pool's connections now (for /metrics). Absent on SQLite: one connection, no pool. */
  poolStats?(): PoolStats;
  /**
   * The drivers under Kysely, for the few reads where building objects per row is the cost
   * (streamed range searches: rows as arrays, src/db/pg-rows.ts).
   */
  raw?: { sqlite: SQLite.Database } | { postgres: pg.Pool };
  /** PostgreSQL with DATABASE_READ_URL: the replica that reads which decide nothing may use (src/db/read-replica.ts). */
  replica?: ReadReplica<Database>;
  close(): Promise<void>;
}

export type PoolStats = PostgresPoolStats;

/** A Kysely handle that is either the database or an open transaction. */
export type Executor = Kysely<DB> | Transaction<DB>;

export interface OpenOptions {
  /** PostgreSQL only: use (and create) this schema, so each test file gets its own. */
  schema?: string;
  /** PostgreSQL pool size. */
  poolSize?: number;
  /** Connection, statement and idle-in-transaction timeouts (default: the DB_*_TIMEOUT_MS defaults). */
  settings?: DatabaseSettings;
  /** PostgreSQL: a streaming replica (DATABASE_READ_URL), opened beside the primary. */
  readUrl?: string;
  /** PostgreSQL: where an idle connection that died is reported (it is replaced on the next use). */
  onConnectionError?: (error: Error) => void;
  /** Kysely's query log: the public hook through which the statement budget test counts statements. */
  queryLog?: LogConfig;
}

export async function openDatabase(url: string, options: OpenOptions = {}): Promise<Database> {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    return openPostgres(url, options);
  }
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length), options.queryLog);
  throw new Error(`DATABASE_URL must start with sqlite: or postgres://, got "${url.split(':')[0]}:..."`);
}

const SQLITE_CACHE_KB = 32_768;
const SQLITE_MMAP_BYTES = 268_435_456;
const SQLITE_WAL_KEEP_BYTES = 1_073_741_824;

function openSqlite(path: string, log?: LogConfig): Database {
  const memory = path === ':memory:' || path === '';
  if (!memory) mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(memory ? ':memory:' : path);
  if (!memory) sqlite.pragma('journal_mode = WAL');
  // NORMAL is durable across process crashes in WAL mode; only an OS crash can lose the last commits.
  sqlite.pragma('synchronous = NORMAL');
  // Commits in WAL mode do not sync; checkpoints do, and SQLite runs them inside the commit that
  // crosses the threshold. A file database checkpoints on a thread of its own instead
  // (src/db/checkpoint-thread.ts); the threshold here is only its backstop (100,000 pages, 400 MB).
  sqlite.pragma(`wal_autocheckpoint = ${memory ? 10000 : 100000}`);
  // After a checkpoint that emptied it, a log that grew larger than this is cut back to it. Under
  // load the log grows to a few hundred MB between restarts (the checkpoint thread's copies race
  // the commits); kept, the next cycle overwrites blocks the file already has. Cut back to 64 MB,
  // every regrowth allocated blocks inside commits, on the event loop.
  sqlite.pragma(`journal_size_limit = ${SQLITE_WAL_KEEP_BYTES}`);
  // 32 MB of page cache (default 2 MB): the indexes a payment touches stay in memory.
  sqlite.pragma(`cache_size = -${SQLITE_CACHE_KB}`);
  // Each member of a group commit is a SAVEPOINT, and SQLite keeps the pages a savepoint changes
  // in a sub-journal; past 64 KB (a payment) that was a temporary file, created, written page by
  // page and unlinked in every transaction (~30 system calls a payment). In memory instead.
  sqlite.pragma('temp_store = MEMORY');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // Reads of large result sets (listings, searches) go through the page cache without copies.
  if (!memory) sqlite.pragma(`mmap_size = ${SQLITE_MMAP_BYTES}`);
  const cache = withStatementCache(sqlite);
  const db = new Kysely<DB>({ dialect: new GroupCommitSqliteDialect(sqlite, (text) => cache.prepare(text)), log });
  const checkpointer = memory ? undefined : startThread(new URL('./checkpoint-thread.js', import.meta.url), { workerData: { path, intervalMs: 100 } });
  // A thread that only checkpoints never keeps the process alive; should it die, the backstop
  // autocheckpoint above keeps the log bounded.
  checkpointer?.unref();
  checkpointer?.on('error', () => {});
  return {
    db,
    dialect: 'sqlite',
    raw: { sqlite },
    close: async () => {
      await checkpointer?.terminate();
      await db.destroy();
    },
  };
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

async function openPostgres(url: string, options: OpenOptions & { replicaOf?: boolean }): Promise<Database> {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error('invalid schema name');
  const settings = options.settings ?? DEFAULT_DATABASE_SETTINGS;
  const { pool, stats } = openPostgresPool(url, settings, { max: options.poolSize ?? settings.poolSize, schema, onConnectionError: options.onConnectionError });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log: options.queryLog });
  const database: Database = { db, dialect: 'postgres', schema, poolStats: stats, raw: { postgres: pool }, close: () => db.destroy() };
  if (schema && !options.replicaOf) await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  if (options.readUrl) {
    // The replica has the primary's schema (it is created there, never here: a standby is read-only).
    const replica = new ReadReplica(await openPostgres(options.readUrl, { ...options, readUrl: undefined, replicaOf: true }), settings.readMaxLagSeconds);
    await replica.start();
    database.replica = replica;
    database.close = async () => {
      await replica.close();
      await db.destroy();
    };
  }
  return database;
}

/** The database a replica-safe read uses: the replica when one is configured and usable, else the primary. */
export function readDatabase(database: Database): Database {
  return database.replica ? database.replica.pick(database) : database;
}

/**
 * Opens the database and waits for it to answer: a service started while its database restarts
 * (or before it, in a compose file) retries with backoff for `settings.startTimeoutMs`, logging
 * each failed try, instead of exiting at once.
 */
export async function openDatabaseWhenReady(
  url: string,
  options: OpenOptions & { log: (message: string, fields: Record<string, unknown>) => void; sleep?: (ms: number) => Promise<void> },
): Promise<Database> {
  const settings = options.settings ?? DEFAULT_DATABASE_SETTINGS;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const started = process.hrtime.bigint();
  const elapsedMs = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  for (let attempt = 1, delay = 500; ; attempt++, delay = Math.min(delay * 2, 5_000)) {
    let database: Database | undefined;
    try {
      database = await openDatabase(url, options);
      await sql`select 1`.execute(database.db);
      if (attempt > 1) options.log('database reachable', { attempt });
      return database;
    } catch (error) {
      await database?.close().catch(() => {});
      const message = error instanceof Error ? error.message : String(error);
      if (elapsedMs() + delay > settings.startTimeoutMs) throw new Error(`the database did not answer within ${settings.startTimeoutMs} ms (DB_START_TIMEOUT_MS): ${message}`);
      options.log('database not reachable yet: retrying', { attempt, retryInMs: delay, error: message });
      await sleep(delay);
    }
  }
}
