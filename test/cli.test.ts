import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { testApp, type TestApp } from './support/harness.js';
import { testDialect } from './support/database.js';

describe(`command-line tool (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  async function cli(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { out: (s) => out.push(s), err: (s) => err.push(s) }, t.ctx);
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
    expect(scopes.json[0].tag).toBe('arguments');
    const unknown = await cli('merchants', 'explode');
    expect(unknown.code).toBe(64);
    expect(unknown.err).toContain('usage: gateway');
  });

  it('applies migrations with migrate', async () => {
    const res = await cli('migrate');
    expect(res.code).toBe(0);
    expect(res.json).toEqual({ applied: [] }); // already at the latest
  });
});
