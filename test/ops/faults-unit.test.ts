import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabaseWhenReady } from '../../src/db/connection.js';
import { isDatabaseUnavailable } from '../../src/db/unavailable.js';
import { loadDatabaseSettings } from '../../src/db/timeouts.js';
import { loadConfig } from '../../src/config.js';
import { closeContext, createContext, type AppContext } from '../../src/root/context.js';
import { buildApp } from '../../src/root/app.js';
import { createLogger } from '../../src/logger.js';
import { testDialect } from '../support/database.js';
import { LogCapture, testApp } from '../support/harness.js';

describe('database faults: classification, start-up waits, shutdown answers', () => {
  it('tells an unreachable or restarting database from a bug', () => {
    const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });
    for (const error of [
      coded('57P01', 'terminating connection due to administrator command'),
      coded('57P03', 'the database system is starting up'),
      coded('08006'),
      coded('53300'),
      coded('ECONNREFUSED'),
      coded('57P02', 'terminating connection because of crash of another server process'),
      coded('ECONNRESET', 'read ECONNRESET'),
      coded('ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.1:5432'),
      // A host that became a standby under a failover refuses writes.
      coded('25006', 'cannot execute INSERT in a read-only transaction'),
      coded('SQLITE_BUSY', 'database is locked'),
      // node-postgres: the socket closed under a statement, no connect within the timeout, no
      // free connection within it, no answer within query_timeout, a client already broken.
      new Error('Connection terminated unexpectedly'),
      new Error('Connection terminated due to connection timeout'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Query read timeout'),
      new Error('Client has encountered a connection error and is not queryable'),
      Object.assign(new Error('wrapped'), { cause: coded('ECONNRESET') }),
    ]) {
      expect(isDatabaseUnavailable(error), error.message).toBe(true);
    }
    for (const error of [coded('23505', 'duplicate key'), coded('42P01', 'relation does not exist'), new TypeError('x is undefined'), null, 'text']) {
      expect(isDatabaseUnavailable(error)).toBe(false);
    }
  });

  it('waits for a database that does not answer at start, logging each try, within DB_START_TIMEOUT_MS', async () => {
    const settings = loadDatabaseSettings({ DB_START_TIMEOUT_MS: '3000', DB_CONNECT_TIMEOUT_MS: '200' }, (v, fallback) => (v === undefined ? fallback : Number(v)));
    const tries: unknown[] = [];
    const slept: number[] = [];
    // Nothing listens on port 9: every try is refused; the waits grow and stop at the limit.
    await expect(
      openDatabaseWhenReady('postgres://postgres@127.0.0.1:9/none', { settings, log: (_m, fields) => tries.push(fields), sleep: async (ms) => void slept.push(ms) }),
    ).rejects.toThrow(/did not answer within 3000 ms \(DB_START_TIMEOUT_MS\)/);
    expect(tries.length).toBeGreaterThanOrEqual(2);
    expect(slept.slice(0, 3)).toEqual([500, 1000, 2000].slice(0, Math.min(3, slept.length)));
  });

  it('answers requests that arrive while shutting down with 503, Retry-After and the error array', async () => {
    // A slow request holds its keep-alive connection while the app closes; the request pipelined
    // behind it on the same connection arrives during the shutdown.
    const t = await testApp({ routes: (app) => app.get('/test/slow', async () => new Promise((resolve) => setTimeout(() => resolve({ ok: true }), 300))) });
    await t.ctx.worker.stop();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    let raw = '';
    let second = false;
    socket.on('data', (d) => {
      raw += d;
      // The next request on the same connection, sent once the first is answered (not pipelined:
      // Node would dispatch a pipelined one at once).
      if (!second && raw.includes('"ok":true')) {
        second = true;
        socket.write('GET /gateway/v1/me HTTP/1.1\r\nHost: x\r\n\r\n');
      }
    });
    const ended = new Promise((resolve) => socket.on('close', resolve));
    socket.write('GET /test/slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = t.app.close();
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 3000))]);
    socket.destroy();
    await closing;
    await t.ctx.database.close();
    const answers = raw.split(/(?=HTTP\/1\.1 )/);
    expect(answers[0]).toMatch(/^HTTP\/1\.1 200/);
    expect(answers[1]).toMatch(/^HTTP\/1\.1 503/);
    expect(answers[1]).toMatch(/retry-after: 1/i);
    expect(answers[1]).toContain('"tag":"shutting_down"');
  });
});

describe('DB_POOL_SIZE', () => {
  it('is 20 unless set, and refuses a size outside 1..1000 by name', () => {
    expect(loadConfig({}).databaseSettings.poolSize).toBe(20);
    expect(loadConfig({ DB_POOL_SIZE: '4' }).databaseSettings.poolSize).toBe(4);
    for (const bad of ['0', '1001', 'many', '2.5']) expect(() => loadConfig({ DB_POOL_SIZE: bad }), bad).toThrow(/DB_POOL_SIZE/);
  });

  it.runIf(testDialect === 'postgres')('holds at most that many PostgreSQL connections: the other queries wait for one', async () => {
    const settings = { ...loadConfig({ DB_POOL_SIZE: '3' }).databaseSettings };
    const database = await openDatabaseWhenReady(process.env.TEST_DATABASE_URL!, { settings, log: () => {} });
    try {
      const running = Array.from({ length: 8 }, () => sql`select pg_sleep(0.2)`.execute(database.db));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const during = database.poolStats!();
      await Promise.all(running);
      expect(during.total).toBe(3);
      expect(during.busy).toBe(3);
      expect(during.waiting).toBe(5);
      expect(during.max).toBe(3);
      expect(database.poolStats!().busy).toBe(0);
    } finally {
      await database.close();
    }
  });
});

describe.runIf(testDialect === 'sqlite')('SQLite busy (another process holds the write lock)', () => {
  it('answers 503 with Retry-After and the error array, and loses nothing once the lock is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-busy-'));
    const url = `sqlite:${join(dir, 'gateway.db')}`;
    const config = loadConfig({ GATEWAY_MODE: 'sandbox', DATABASE_URL: url, ADMIN_API_KEY: 'busy-admin-key-0123456789abcdefghijklmn', PASSWORD_HASH_COST: '10' });
    const ctx = await createContext(config, { logger: createLogger('warn', new LogCapture()) });
    const app = await buildApp(ctx);
    const admin = { authorization: `Bearer ${ctx.adminApiKey}` };
    const other = new SQLite(join(dir, 'gateway.db'), { timeout: 0 });
    try {
      // Shorter than the 5 s default, so the test does not wait it out: the connection's busy timeout.
      await sqlPragma(ctx, 'busy_timeout = 200');
      other.exec('begin immediate');
      const refused = await app.inject({ method: 'POST', url: '/admin/merchants', headers: admin, payload: { name: 'Busy', documentNumber: '11222333000181' } });
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('2');
      expect(refused.json()).toEqual([{ tag: 'database_unavailable', description: expect.any(String) }]);
      other.exec('rollback');
      const accepted = await app.inject({ method: 'POST', url: '/admin/merchants', headers: admin, payload: { name: 'Busy', documentNumber: '11222333000181' } });
      expect(accepted.statusCode).toBe(201);
      const merchants = await ctx.database.db.selectFrom('merchants').select('merchant_id').where('name', '=', 'Busy').execute();
      expect(merchants).toHaveLength(1);
    } finally {
      other.close();
      await app.close();
      await closeContext(ctx);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

async function sqlPragma(ctx: AppContext, pragma: string): Promise<void> {
  await sql.raw(`pragma ${pragma}`).execute(ctx.database.db);
}
