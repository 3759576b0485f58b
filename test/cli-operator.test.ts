import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { COMMANDS } from '../src/cli/commands.js';
import { SETTINGS } from '../src/config-catalogue.js';
import { testApp, type TestApp } from './support/harness.js';
import { testDialect } from './support/database.js';

/** The operator's command line. */
describe(`command-line tool for operators (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  async function cli(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { out: (s) => out.push(s), err: (s) => err.push(s) }, t.ctx);
    return { code, out: out.join('\n'), err: err.join('\n') };
  }
  const json = (text: string) => JSON.parse(text);
  const merchantCount = async () => Number((await t.ctx.database.db.selectFrom('merchants').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  it('--help on every command exits 0, shows its usage and runs nothing', async () => {
    const before = await merchantCount();
    for (const command of COMMANDS) {
      const words = command.name.split(' ');
      // Even with every flag it would need: help wins and nothing runs.
      const res = await cli(...words, '--name', 'Loja', '--document', '11222333000181', '--help');
      expect(res.code, command.name).toBe(0);
      expect(res.out, command.name).toContain(`usage: gateway ${command.name}`);
      expect((await cli(...words, '-h')).code, command.name).toBe(0);
      expect((await cli('help', ...words)).out, command.name).toContain(`usage: gateway ${command.name}`);
    }
    expect(await merchantCount()).toBe(before);
    for (const argv of [['--help'], ['help'], ['merchants', '--help']]) {
      const res = await cli(...argv);
      expect(res.code).toBe(0);
      expect(res.out).toContain('merchants create');
    }
  });

  it('bad flags and values are refused with the error array naming the flag (exit 64), before anything runs', async () => {
    const before = await merchantCount();
    const unknown = await cli('merchants', 'create', '--name', 'X', '--document', '11222333000181', '--colour', 'red');
    expect(unknown.code).toBe(64);
    expect(json(unknown.out)[0].tag).toBe('--colour');
    expect(json(unknown.out)[0].description).toContain('--document');
    const missingValue = await cli('merchants', 'create', '--document', '11222333000181', '--name');
    expect(missingValue.code).toBe(64);
    expect(json(missingValue.out)[0].tag).toBe('--name');
    const missing = await cli('merchants', 'create', '--name', 'X');
    expect(json(missing.out)).toEqual([{ tag: '--document', description: expect.stringContaining('required') }]);
    const page = await cli('merchants', 'list', '--page', 'two');
    expect(page.code).toBe(64);
    expect(json(page.out)[0].tag).toBe('--page');
    expect(json((await cli('keys', 'reencrypt', '--batch', '0')).out)[0].tag).toBe('--batch');
    expect(json((await cli('keys', 'rotate', 'now')).out)[0].tag).toBe('arguments');
    expect(json((await cli('frobnicate')).out)[0].tag).toBe('command');
    expect(await merchantCount()).toBe(before);
  });

  it('merchants create refuses a document already registered', async () => {
    const first = await cli('merchants', 'create', '--name', 'Loja Um', '--document', '52998224725');
    expect(first.code).toBe(0);
    const id = json(first.out).merchantId;
    const again = await cli('merchants', 'create', '--name', 'Loja Dois', '--document', '52998224725');
    expect(again.code).toBe(1);
    expect(json(again.out)[0].tag).toBe('--document');
    expect(json(again.out)[0].description).toContain(id);
    const rows = await t.ctx.database.db.selectFrom('merchants').select('merchant_id').where('document_number', '=', '52998224725').execute();
    expect(rows).toHaveLength(1);
  });

  it('gateway env lists every setting with its default and meaning, never a secret value', async () => {
    const previous = process.env.ADMIN_API_KEY;
    process.env.ADMIN_API_KEY = 'a-secret-admin-key-that-must-not-print-0123';
    try {
      const res = await cli('env');
      expect(res.code).toBe(0);
      const listed = json(res.out) as { name: string; default: string; meaning: string; secret: boolean; set: boolean; value?: string }[];
      expect(listed.map((s) => s.name)).toEqual(SETTINGS.map((s) => s.name));
      for (const s of listed) {
        expect(s.default, s.name).toBeTruthy();
        expect(s.meaning.length, s.name).toBeGreaterThan(10);
      }
      expect(listed.find((s) => s.name === 'ADMIN_API_KEY')).toMatchObject({ secret: true, set: true });
      expect(res.out).not.toContain('a-secret-admin-key');
    } finally {
      if (previous === undefined) delete process.env.ADMIN_API_KEY;
      else process.env.ADMIN_API_KEY = previous;
    }
  });

  it('every setting a config file reads is in the catalogue `gateway env` prints', () => {
    const root = join(import.meta.dirname, '../src');
    const files = ['config.ts', 'db/timeouts.ts', 'acquirer/config.ts', 'pix-provider/config.ts', 'bank/config.ts'];
    const read = new Set<string>();
    for (const file of files) {
      let text: string;
      try {
        text = readFileSync(join(root, file), 'utf8');
      } catch {
        continue; // a config file another change removed
      }
      for (const [, name] of text.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) read.add(name);
      // Names read through a list (env[name]): quoted setting names in a config file.
      for (const [, name] of text.matchAll(/'([A-Z][A-Z0-9]*_[A-Z0-9_]+)'/g)) read.add(name);
    }
    const documented = new Set(SETTINGS.map((s) => s.name));
    expect([...read].filter((name) => !documented.has(name))).toEqual([]);
    expect(read.size).toBeGreaterThan(30);
  });

  it('bin/gateway.js: --help exits 0; an unknown flag exits 64 with the error array', () => {
    const bin = join(import.meta.dirname, '../bin/gateway.js');
    const help = spawnSync(process.execPath, [bin, 'merchants', 'create', '--help'], { encoding: 'utf8', env: { ...process.env, GATEWAY_MODE: 'production' } });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('usage: gateway merchants create');
    const bad = spawnSync(process.execPath, [bin, 'merchants', 'list', '--pages', '2'], { encoding: 'utf8', env: { ...process.env, GATEWAY_MODE: 'production' } });
    expect(bad.status).toBe(64);
    expect(JSON.parse(bad.stdout)[0].tag).toBe('--pages');
  });
});
