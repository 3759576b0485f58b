import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testDialect } from './support/database.js';

/**
 * The real entry point, as `npm start` runs it: first start prints the demo credentials, a
 * restart prints the same ones, a pasted curl session works, SIGTERM shuts down cleanly.
 * SQLite only: this is the embedded-database path a newcomer takes.
 */
const root = join(import.meta.dirname, '..');
const dataDir = mkdtempSync(join(tmpdir(), 'gateway-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Started {
  child: ChildProcess;
  output: () => string;
  port: number;
}

async function start(env: Record<string, string>, port: number): Promise<Started> {
  const child = spawn(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'src/server.ts')], {
    env: { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dataDir, 'gateway.db')}`, PASSWORD_HASH_COST: '10', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  for (let i = 0; i < 200; i++) {
    if (out.includes('admin key:')) return { child, output: () => out, port };
    if (child.exitCode !== null) throw new Error(`server exited: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start: ${out}`);
}

function field(output: string, name: string): string {
  const match = new RegExp(`${name}:\\s+(\\S+)`).exec(output);
  if (!match) throw new Error(`no ${name} in output`);
  return match[1];
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe.runIf(testDialect === 'sqlite')('npm start (embedded database)', () => {
  it('prints demo credentials that work, keeps them across restarts, and stops cleanly on SIGTERM', async () => {
    const first = await start({}, 18431);
    const base = `http://127.0.0.1:${first.port}`;
    const userName = field(first.output(), 'userName');
    const password = field(first.output(), 'password');
    const adminKey = field(first.output(), 'admin key');
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    const token = await fetch(`${base}/gateway/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName, password }),
    });
    expect(token.status).toBe(200);
    const { accessToken } = (await token.json()) as { accessToken: string };
    const me = await fetch(`${base}/gateway/v1/me`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { accountNumber: number }).accountNumber).toBe(Number(field(first.output(), 'accountNumber')));
    expect((await fetch(`${base}/sandbox/clock`, { headers: { authorization: `Bearer ${adminKey}` } })).status).toBe(200);

    const firstExit = exited(first.child);
    first.child.kill('SIGTERM');
    expect(await firstExit).toBe(0);

    const second = await start({}, 18432);
    expect(field(second.output(), 'userName')).toBe(userName);
    expect(field(second.output(), 'password')).toBe(password);
    expect(field(second.output(), 'admin key')).toBe(adminKey);
    const secondExit = exited(second.child);
    second.child.kill('SIGINT');
    expect(await secondExit).toBe(0);
  });

  it('refuses to start in production without its secrets, saying which', async () => {
    const child = spawn(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'src/server.ts')], {
      env: { PATH: process.env.PATH, GATEWAY_MODE: 'production', PORT: '18433', DATABASE_URL: `sqlite:${join(dataDir, 'prod.db')}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    expect(await exited(child)).toBe(2);
    expect(err).toContain('ADMIN_API_KEY is required');
    expect(err).toContain('DATA_KEY is required');
    expect(err).toContain('ACQUIRER is required');
  });

  const productionEnv = (extra: Record<string, string>) => ({
    PATH: process.env.PATH,
    GATEWAY_MODE: 'production',
    HOST: '127.0.0.1',
    ADMIN_API_KEY: 'a'.repeat(40),
    DATA_KEY: Buffer.alloc(32, 7).toString('base64'),
    PASSWORD_HASH_COST: '10',
    ...extra,
  });

  it('refuses production without an explicit DATABASE_URL and ACQUIRER, naming both', async () => {
    const child = spawn(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'src/server.ts')], { cwd: dataDir, env: productionEnv({ PORT: '18434' }), stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    expect(await exited(child)).toBe(2);
    expect(err).toContain('DATABASE_URL is required in production');
    expect(err).toContain('ACQUIRER is required in production');
    expect(err).not.toContain('ADMIN_API_KEY');
  });

  it('starts production with ACQUIRER=sandbox only as stated: a warning at start and in /readyz', async () => {
    const child = spawn(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'src/server.ts')], {
      env: productionEnv({ PORT: '18435', ACQUIRER: 'sandbox', DATABASE_URL: `sqlite:${join(dataDir, 'prod-sandbox.db')}` }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    try {
      for (let i = 0; i < 200 && !out.includes('"ready"'); i++) await new Promise((r) => setTimeout(r, 50));
      expect(out).toContain('ACQUIRER=sandbox in production');
      const ready = await (await fetch('http://127.0.0.1:18435/readyz')).json();
      expect(ready).toMatchObject({ status: 'ready', acquirer: 'sandbox', warnings: [expect.stringContaining('nothing reaches a card network')] });
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  });
});
