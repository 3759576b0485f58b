import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { testApp, type TestApp } from './support/harness.js';
import { loadConfig } from '../src/config.js';
import { migrations } from '../src/db/migrate.js';
import { TEST_DATABASE_URL, testDialect, underSchemaLock } from './support/database.js';

describe(`command-line tool (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  async function cli(...argv: string[]) {
    return cliWith(t.ctx, ...argv);
  }
  async function cliWith(ctx: TestApp['ctx'], ...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { out: (s) => out.push(s), err: (s) => err.push(s) }, ctx);
    return { code, json: out.length ? JSON.parse(out.join('\n')) : undefined, err: err.join('\n') };
  }

  it('creates a merchant, issues and revokes a credential, printing JSON', async () => {
    const merchant = await cli('merchants', 'create', '--name', 'Loja CLI', '--document', '11222333000181', '--email', 'cli@loja.test');
    expect(merchant.code).toBe(0);
    expect(merchant.json).toMatchObject({ name: 'Loja CLI', documentNumber: '11222333000181', email: 'cli@loja.test' });

    const credential = await cli('credentials', 'create', '--merchant', merchant.json.merchantId, '--scopes', 'payments,integration', '--allowed-ips', '10.0.0.0/8');
    expect(credential.code).toBe(0);
    expect(credential.json).toMatchObject({ merchantId: merchant.json.merchantId, scopes: ['payments', 'integration'], allowedIps: ['10.0.0.0/8'] });

    const login = await t.inject({ method: 'POST', url: '/integration/api/authentication/login', remoteAddress: '10.9.9.9', payload: { userName: credential.json.userName, password: credential.json.password } });
    expect(login.statusCode).toBe(200);

    const revoked = await cli('credentials', 'revoke', credential.json.userName);
    expect(revoked.code).toBe(0);
    expect(revoked.json.userName).toBe(credential.json.userName);
    const after = await t.inject({ method: 'GET', url: '/integration/api/me', remoteAddress: '10.9.9.9', headers: { authorization: `Bearer ${login.json().accessToken}` } });
    expect(after.statusCode).toBe(401);

    const list = await cli('merchants', 'list');
    expect(list.json.items.map((m: { merchantId: string }) => m.merchantId)).toContain(merchant.json.merchantId);
  });

  it('prints the error array and exits 1 on bad input; usage and 64 on an unknown command', async () => {
    const bad = await cli('merchants', 'create', '--name', 'X', '--document', '123');
    expect(bad.code).toBe(1);
    expect(bad.json[0].tag).toBe('documentNumber');
    const scopes = await cli('credentials', 'create', '--merchant', 'mer_x', '--scopes', 'everything');
    expect(scopes.code).toBe(1);
    expect(scopes.json[0].tag).toBe('--scopes');
    const unknown = await cli('merchants', 'explode');
    expect(unknown.code).toBe(64);
    expect(unknown.json[0]).toMatchObject({ tag: 'command' });
    expect(unknown.json[0].description).toContain('merchants explode');
    expect(unknown.err).toContain('usage: gateway');
  });

  it('applies migrations with migrate', async () => {
    const res = await cli('migrate');
    expect(res.code).toBe(0);
    expect(res.json).toEqual({ applied: [] }); // already at the latest
    const up = await cli('migrate', 'up');
    expect(up).toMatchObject({ code: 0, json: { applied: [] } });
  });

  it('migrate status lists applied and pending migrations; down reverts one step, up applies it again', async () => {
    const names = Object.keys(migrations);
    const last = names.at(-1)!;
    const status = await cli('migrate', 'status');
    expect(status.code).toBe(0);
    expect(status.json.applied.map((m: { name: string }) => m.name)).toEqual(names);
    expect(status.json.applied.every((m: { executedAt: string }) => !Number.isNaN(Date.parse(m.executedAt)))).toBe(true);
    expect(status.json).toMatchObject({ pending: [], unknown: [] });

    // Kysely's migrator introspects every schema: on PostgreSQL it takes turns with the other
    // test files' schema drops (test/support/database.ts).
    const down = await underSchemaLock(() => cli('migrate', 'down'));
    expect(down).toMatchObject({ code: 0, json: { reverted: [last] } });
    const after = await cli('migrate', 'status');
    expect(after.json.applied.map((m: { name: string }) => m.name)).toEqual(names.slice(0, -1));
    expect(after.json.pending).toEqual([last]);
    // The reverted migration's work is undone: the migration table no longer lists it (its
    // down() ran in the same transaction, so what it created went with it).
    const recorded = await sql<{ name: string }>`select name from kysely_migration`.execute(t.ctx.database.db);
    expect(recorded.rows.map((r) => r.name)).not.toContain(last);

    const up = await underSchemaLock(() => cli('migrate', 'up'));
    expect(up).toMatchObject({ code: 0, json: { applied: [last] } });
    expect((await cli('migrate', 'status')).json.pending).toEqual([]);

    const unknown = await cli('migrate', 'sideways');
    expect(unknown.code).toBe(64);
    expect(unknown.json[0]).toMatchObject({ tag: 'arguments' });
    expect(unknown.json[0].description).toContain('sideways');
  });

  it('migrate down on a production database needs --yes', async () => {
    const production = loadConfig({
      GATEWAY_MODE: 'production',
      ADMIN_API_KEY: 'production-admin-key-0123456789abcdef',
      DATA_KEY: Buffer.alloc(32, 7).toString('base64'),
      DATABASE_URL: TEST_DATABASE_URL, // the CLI works on the context's database
      ACQUIRER: 'sandbox',
    });
    const ctx = { ...t.ctx, config: production };
    const last = Object.keys(migrations).at(-1)!;

    const refused = await cliWith(ctx, 'migrate', 'down');
    expect(refused.code).toBe(1);
    expect(refused.json[0].tag).toBe('confirmation_required');
    expect(refused.json[0].description).toContain(last);
    expect(refused.json[0].description).toContain('--yes');
    expect((await cliWith(ctx, 'migrate', 'status')).json.pending).toEqual([]); // nothing reverted

    const confirmed = await underSchemaLock(() => cliWith(ctx, 'migrate', 'down', '--yes'));
    expect(confirmed).toMatchObject({ code: 0, json: { reverted: [last] } });
    expect(await underSchemaLock(() => cliWith(ctx, 'migrate'))).toMatchObject({ code: 0, json: { applied: [last] } });
  });
});
