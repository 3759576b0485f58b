import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Database } from './connection.js';
import * as m0001 from './migrations/0001_foundation.js';
import * as m0002 from './migrations/0002_cards_payments.js';
import * as m0003 from './migrations/0003_recurrence.js';
import * as m0004 from './migrations/0004_bankslips.js';
import * as m0005 from './migrations/0005_paymentlinks.js';
import * as m0006 from './migrations/0006_settlement.js';
import * as m0007 from './migrations/0007_webhooks.js';

/**
 * The one ordered migration set for both engines. Add new migrations at the end; never edit
 * one that has shipped.
 */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_cards_payments': m0002,
  '0003_recurrence': m0003,
  '0004_bankslips': m0004,
  '0005_paymentlinks': m0005,
  '0006_settlement': m0006,
  '0007_webhooks': m0007,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export function migrator(database: Database): Migrator {
  // Kysely looks for its own tables in every schema; name ours so that a schema per test file works.
  return new Migrator({ db: database.db, provider, migrationTableSchema: database.schema });
}

/**
 * Names of the applied migrations, read directly: Kysely's own check introspects every schema
 * of the database, which races with another schema being dropped (a test file finishing).
 * Null when the migration table does not exist yet.
 */
async function appliedMigrations(database: Database): Promise<Set<string> | null> {
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(database.db);
    return new Set(rows.map((r) => r.name));
  } catch {
    return null;
  }
}

export async function migrateToLatest(database: Database): Promise<string[]> {
  if (await migrationsApplied(database)) return [];
  const { error, results } = await migrator(database).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** True when every known migration has been applied (used by /readyz). */
export async function migrationsApplied(database: Database): Promise<boolean> {
  const applied = await appliedMigrations(database);
  return applied !== null && Object.keys(migrations).every((name) => applied.has(name));
}
