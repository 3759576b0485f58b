import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Database } from './connection.js';
import * as m0001 from './migrations/0001_foundation.js';
import * as m0002 from './migrations/0002_cards_payments.js';
import * as m0003 from './migrations/0003_recurrence.js';
import * as m0004 from './migrations/0004_bankslips.js';
import * as m0005 from './migrations/0005_paymentlinks.js';
import * as m0006 from './migrations/0006_settlement.js';
import * as m0007 from './migrations/0007_webhooks.js';
import * as m0008 from './migrations/0008_acquirers.js';
import * as m0009 from './migrations/0009_bankslip_listing_order.js';
import * as m0010 from './migrations/0010_bankslip_cnab.js';
import * as m0011 from './migrations/0011_pix_provider.js';
import * as m0012 from './migrations/0012_receivables_payment_date_walk.js';
import * as m0013 from './migrations/0013_event_types.js';
import * as m0014 from './migrations/0014_dashboard_sessions.js';
import * as m0015 from './migrations/0015_dashboard_payments.js';
import * as m0016 from './migrations/0016_dashboard_lists.js';
import * as m0017 from './migrations/0017_dashboard_operator.js';
import * as m0018 from './migrations/0018_payments_without_billing_index.js';
import * as m0019 from './migrations/0019_refunds.js';
import * as m0020 from './migrations/0020_disputes.js';
import * as m0030 from './migrations/0030_pix_refunds.js';
import * as m0031 from './migrations/0031_pix_med.js';
import * as m0032 from './migrations/0032_pix_due_dates.js';
import * as m0033 from './migrations/0033_bankslip_discounts.js';
import * as m0040 from './migrations/0040_pix_automatico.js';
import * as m0041 from './migrations/0041_payment_outbox.js';
import * as m0042 from './migrations/0042_merchant_address.js';
import * as m0043 from './migrations/0043_pix_reconcile_cursors.js';
import * as m0044 from './migrations/0044_pix_med_returns.js';
import * as m0045 from './migrations/0045_payment_three_ds.js';
import * as m0046 from './migrations/0046_cards_keep_paying.js';

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
  '0008_acquirers': m0008,
  '0009_bankslip_listing_order': m0009,
  '0010_bankslip_cnab': m0010,
  '0011_pix_provider': m0011,
  '0012_receivables_payment_date_walk': m0012,
  '0013_event_types': m0013,
  '0014_dashboard_sessions': m0014,
  '0015_dashboard_payments': m0015,
  '0016_dashboard_lists': m0016,
  '0017_dashboard_operator': m0017,
  '0018_payments_without_billing_index': m0018,
  '0019_refunds': m0019,
  '0020_disputes': m0020,
  '0030_pix_refunds': m0030,
  '0031_pix_med': m0031,
  '0032_pix_due_dates': m0032,
  '0033_bankslip_discounts': m0033,
  '0040_pix_automatico': m0040,
  '0041_payment_outbox': m0041,
  '0042_merchant_address': m0042,
  '0043_pix_reconcile_cursors': m0043,
  '0044_pix_med_returns': m0044,
  '0045_payment_three_ds': m0045,
  '0046_cards_keep_paying': m0046,
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

export interface MigrationStatus {
  /** Applied migrations in the order they run, with when each was applied. */
  applied: { name: string; executedAt: string }[];
  /** Known to this build, not applied yet (`gateway migrate up` applies them). */
  pending: string[];
  /** Applied to the database but unknown to this build: a newer version migrated it. */
  unknown: string[];
}

/**
 * `gateway migrate status`. Reads the migration table directly, like `appliedMigrations`, but
 * says "no table" only when the table is really absent: an unreachable database is an error,
 * never "everything pending".
 */
export async function migrationStatus(database: Database): Promise<MigrationStatus> {
  const exists =
    database.dialect === 'postgres'
      ? (await sql<{ found: string | null }>`select to_regclass('kysely_migration')::text as found`.execute(database.db)).rows[0]?.found != null
      : (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name = 'kysely_migration'`.execute(database.db)).rows.length > 0;
  const rows = exists
    ? (await sql<{ name: string; timestamp: string }>`select "name", "timestamp" from "kysely_migration" order by "name"`.execute(database.db)).rows
    : [];
  const known = Object.keys(migrations);
  const applied = new Set(rows.map((r) => r.name));
  return {
    applied: rows.filter((r) => known.includes(r.name)).map((r) => ({ name: r.name, executedAt: r.timestamp })),
    pending: known.filter((name) => !applied.has(name)),
    unknown: rows.filter((r) => !known.includes(r.name)).map((r) => r.name),
  };
}

/**
 * `gateway migrate down`: reverts the last applied migration (its `down()`), one step. Running
 * instances keep serving code that expects the reverted schema: stop them first.
 */
export async function migrateDown(database: Database): Promise<string[]> {
  const { error, results } = await migrator(database).migrateDown();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
