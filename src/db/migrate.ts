import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Database } from './connection.js';
import * as m0001 from './migrations/0001_foundation.js';
import * as m0002 from './migrations/0002_cards_payments.js';

/**
 * The one ordered migration set for both engines. Add new migrations at the end; never edit
 * one that has shipped.
 */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_cards_payments': m0002,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export function migrator(database: Database): Migrator {
  // Kysely looks for its own tables in every schema; name ours so that a schema per test file works.
  return new Migrator({ db: database.db, provider, migrationTableSchema: database.schema });
}

export async function migrateToLatest(database: Database): Promise<string[]> {
  const { error, results } = await migrator(database).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** True when every known migration has been applied (used by /readyz). */
export async function migrationsApplied(database: Database): Promise<boolean> {
  const all = await migrator(database).getMigrations();
  return all.every((m) => m.executedAt !== undefined);
}
