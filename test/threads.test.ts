import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import SQLite from 'better-sqlite3';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/connection.js';

/**
 * Worker threads run module files (src/threads.ts), never code held in a string, so the type
 * checker and the build see them: from the TypeScript sources through tsx (npm start, these
 * tests), and compiled to JavaScript under plain node (the image).
 */
const root = join(import.meta.dirname, '..');
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));

/** A database file in WAL mode whose log holds ~3 MB that no checkpoint has copied yet. */
function uncheckpointed(path: string): { sqlite: SQLite.Database; size: () => number } {
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('wal_autocheckpoint = 0');
  sqlite.exec('create table filler (id integer primary key, body text)');
  const insert = sqlite.prepare('insert into filler (body) values (?)');
  sqlite.transaction(() => {
    for (let i = 0; i < 300; i++) insert.run('x'.repeat(10_000));
  })();
  return { sqlite, size: () => statSync(path).size };
}

describe('worker threads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-threads-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('start from a module file beside their starter, through startThread, never from a string', () => {
    const started: string[] = [];
    for (const file of sources(join(root, 'src'))) {
      const text = readFileSync(file, 'utf8');
      const where = relative(root, file);
      expect(text, where).not.toMatch(/eval:\s*true/);
      // node:worker_threads' Worker is made in src/threads.ts only (src/jobs has a Worker of its own).
      if (where !== 'src/threads.ts' && /import \{[^}]*\bWorker\b[^}]*\} from 'node:worker_threads'/.test(text)) expect(text, where).not.toMatch(/new Worker\(/);
      for (const [, name] of text.matchAll(/startThread\(new URL\('\.\/([\w-]+)\.js', import\.meta\.url\)/g)) {
        expect(statSync(join(dirname(file), `${name}.ts`)).isFile(), `${where} starts ${name}.ts`).toBe(true);
        started.push(name);
      }
    }
    expect(started).toEqual(['checkpoint-thread']);
  });

  it('from the sources: a SQLite file database checkpoints its log on its thread', async () => {
    const path = join(dir, 'sources.db');
    const { sqlite, size } = uncheckpointed(path);
    const before = size();
    const database = await openDatabase(`sqlite:${path}`);
    try {
      await expect.poll(size, { timeout: 10_000 }).toBeGreaterThan(before + 2_500_000);
    } finally {
      await database.close();
      sqlite.close();
    }
  });

  it('compiled to JavaScript, under plain node: the checkpoint thread runs', async () => {
    // The modules transpiled as the build emits them, beside the checkout's node_modules.
    const app = join(dir, 'app');
    mkdirSync(join(app, 'dist/db'), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(app, 'node_modules'), 'dir');
    writeFileSync(join(app, 'package.json'), '{ "type": "module" }');
    const compilerOptions = { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, esModuleInterop: true };
    for (const file of ['threads.ts', 'db/checkpoint-thread.ts']) {
      const js = ts.transpileModule(readFileSync(join(root, 'src', file), 'utf8'), { compilerOptions }).outputText;
      writeFileSync(join(app, 'dist', file.replace(/\.ts$/, '.js')), js);
    }
    const { startThread } = (await import(pathToFileURL(join(app, 'dist/threads.js')).href)) as typeof import('../src/threads.js');
    const path = join(dir, 'compiled.db');
    const { sqlite, size } = uncheckpointed(path);
    const before = size();
    const thread = startThread(pathToFileURL(join(app, 'dist/db/checkpoint-thread.js')), { workerData: { path, intervalMs: 20 } });
    const failed = new Promise<never>((_, reject) => thread.once('error', reject));
    try {
      await Promise.race([expect.poll(size, { timeout: 10_000 }).toBeGreaterThan(before + 2_500_000), failed]);
    } finally {
      await thread.terminate();
      sqlite.close();
    }
  });
});
