import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase, readDatabase } from '../../src/db/connection.js';
import { ReadReplica } from '../../src/db/read-replica.js';
import { PaymentReadModels } from '../../src/modules/payments/read-models.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { DEFAULT_DATABASE_SETTINGS } from '../../src/db/timeouts.js';
import { TEST_DATABASE_URL, testDialect } from '../support/database.js';

/**
 * DATABASE_READ_URL: which database the replica-safe reads use. The lag itself, a paused replay
 * and a failover are exercised on a real primary/standby pair by test/ops/failover.test.ts.
 */
describe('DATABASE_READ_URL and DB_READ_MAX_LAG_SECONDS', () => {
  it('are optional, 10 s by default, PostgreSQL only and checked by name', () => {
    expect(loadConfig({}).databaseReadUrl).toBeUndefined();
    expect(loadConfig({}).databaseSettings.readMaxLagSeconds).toBe(10);
    expect(loadConfig({ DB_READ_MAX_LAG_SECONDS: '0' }).databaseSettings.readMaxLagSeconds).toBe(0);
    for (const bad of ['-1', 'soon', '86401']) expect(() => loadConfig({ DB_READ_MAX_LAG_SECONDS: bad }), bad).toThrow(/DB_READ_MAX_LAG_SECONDS/);
    const pg = { DATABASE_URL: 'postgres://u@h1/db' };
    expect(loadConfig({ ...pg, DATABASE_READ_URL: 'postgres://u@h2/db' }).databaseReadUrl).toBe('postgres://u@h2/db');
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://u@h2/db' })).toThrow(/DATABASE_READ_URL/);
    expect(() => loadConfig({ ...pg, DATABASE_READ_URL: 'sqlite:./x.db' })).toThrow(/DATABASE_READ_URL/);
  });

  it('without a replica, every read is the primary', async () => {
    const database = await openDatabase('sqlite::memory:');
    try {
      expect(readDatabase(database)).toBe(database);
    } finally {
      await database.close();
    }
  });

  it.runIf(testDialect === 'postgres')('a replica that answers within the limit takes the reads; one that does not answer sends them to the primary', async () => {
    const settings = { ...DEFAULT_DATABASE_SETTINGS, connectTimeoutMs: 500 };
    const primary = await openDatabase(TEST_DATABASE_URL, { settings, readUrl: TEST_DATABASE_URL });
    try {
      // The test database is a primary: not in recovery, lag 0.
      expect(primary.replica!.state()).toMatchObject({ reachable: true, lagSeconds: 0, inUse: true });
      expect(readDatabase(primary)).toBe(primary.replica!.database);
      expect(primary.replica!.state().routed).toEqual({ replica: 1, primary: 0 });
    } finally {
      await primary.close();
    }
    const base = await openDatabase(TEST_DATABASE_URL, { settings });
    // Nothing listens on port 9.
    const down = new ReadReplica(await openDatabase('postgres://postgres@127.0.0.1:9/none', { settings }), 10);
    try {
      await down.start();
      expect(down.state()).toMatchObject({ reachable: false, lagSeconds: null, inUse: false });
      expect(down.pick(base)).toBe(base);
      expect(down.state().routed).toEqual({ replica: 0, primary: 1 });
    } finally {
      await down.close();
      await base.close();
    }
  });

  it.runIf(testDialect === 'postgres')("the dashboard's payment list and charts read from the replica; a payment's page stays on the primary", async () => {
    const schema = `t_reads_${Date.now().toString(36)}`;
    const settings = { ...DEFAULT_DATABASE_SETTINGS, connectTimeoutMs: 500 };
    // The test database stands for both sides (a primary answers the probe with lag 0).
    const primary = await openDatabase(TEST_DATABASE_URL, { settings, schema, readUrl: TEST_DATABASE_URL });
    try {
      await migrateToLatest(primary);
      const reads = new PaymentReadModels(primary);
      const routed = () => primary.replica!.state().routed;
      expect(await reads.search('mer_none', { from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' }, 10)).toEqual([]);
      expect(await reads.declines('mer_none', '2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z')).toEqual([]);
      expect(routed()).toEqual({ replica: 2, primary: 0 });
      await reads.detail('mer_none', 'pay_none').catch(() => undefined);
      expect(routed()).toEqual({ replica: 2, primary: 0 });
    } finally {
      await primary.db.schema.dropSchema(schema).ifExists().cascade().execute().catch(() => {});
      await primary.close();
    }
  });
});
