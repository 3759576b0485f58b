import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase, type Database, type OpenOptions } from '../../src/db/connection.js';
import { migrateToLatest } from '../../src/db/migrate.js';

/**
 * The database the suite runs on: SQLite in memory by default, PostgreSQL when
 * TEST_DATABASE_URL=postgres://... is set (CI runs the suite both ways).
 * Each call gets its own fresh, migrated database: a new in-memory SQLite, or a new schema.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'sqlite::memory:';
export const testDialect = TEST_DATABASE_URL.startsWith('postgres') ? 'postgres' : 'sqlite';

export interface TestDatabase extends Database {
  url: string;
  schema?: string;
}

/**
 * Kysely's migrator introspects every schema of the database; a schema dropped by another test
 * file at that moment makes it fail ("schema does not exist"). Migrating a new schema and
 * dropping an old one therefore take turns under one advisory lock (so do the migrate CLI tests).
 */
export async function underSchemaLock<T>(work: () => Promise<T>): Promise<T> {
  if (testDialect !== 'postgres') return work();
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock(727001)');
    return await work();
  } finally {
    await client.query('select pg_advisory_unlock(727001)').catch(() => {});
    await client.end();
  }
}

export async function freshDatabase(options: { migrate?: boolean; poolSize?: number; queryLog?: OpenOptions['queryLog'] } = {}): Promise<TestDatabase> {
  const schema = testDialect === 'postgres' ? `t_${randomBytes(6).toString('hex')}` : undefined;
  const database = await openDatabase(TEST_DATABASE_URL, { schema, poolSize: options.poolSize, queryLog: options.queryLog });
  if (options.migrate !== false) await underSchemaLock(() => migrateToLatest(database));
  const close = database.close;
  return {
    ...database,
    url: TEST_DATABASE_URL,
    async close() {
      if (schema) await underSchemaLock(() => sql`drop schema if exists ${sql.id(schema)} cascade`.execute(database.db)).catch(() => {});
      await close();
    },
  };
}

/** A second connection pool onto the same PostgreSQL schema (a second instance of the service). */
export async function secondConnection(first: TestDatabase): Promise<Database> {
  if (!first.schema) throw new Error('secondConnection needs PostgreSQL');
  return openDatabase(first.url, { schema: first.schema });
}
