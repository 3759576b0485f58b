import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/connection.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { SWEEP_JOB } from '../../src/modules/settlement/service.js';
import { TEST_DATABASE_URL, testDialect } from '../support/database.js';

/**
 * The real server process restarted after a `kill -9` that left a job running (the row exactly as
 * the killed process leaves it: running, locked by its worker id, the lease still on). With the
 * same INSTANCE_ID the new process takes it back at once, not when the lease ends. On
 * PostgreSQL a job of another instance (which may be alive) waits for its lease (JOB_LEASE_MS).
 * On the engine of the run: a file SQLite database, or a fresh PostgreSQL database (the server
 * takes no schema option, so a database of its own, dropped afterwards).
 */
const root = join(import.meta.dirname, '../..');
const INSTANCE = 'takeover-test.local:18080';
const LEASE_MS = 2000;

let dataDir: string | undefined;
let url: string;
let pgDatabase: string | undefined;

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  if (testDialect === 'postgres') {
    pgDatabase = `gw_takeover_${randomBytes(6).toString('hex')}`;
    await admin((c) => c.query(`create database ${pgDatabase}`));
    const target = new URL(TEST_DATABASE_URL);
    target.pathname = `/${pgDatabase}`;
    url = target.toString();
  } else {
    dataDir = mkdtempSync(join(tmpdir(), 'gateway-takeover-'));
    url = `sqlite:${join(dataDir, 'gateway.db')}`;
  }
});

afterAll(async () => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  if (pgDatabase) await admin((c) => c.query(`drop database if exists ${pgDatabase} with (force)`));
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function start(env: Record<string, string>): Promise<{ child: ChildProcess; output: () => string }> {
  // node itself runs the server (tsx as a loader), so a kill reaches the server.
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/server.ts')], {
    cwd: root,
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', DATABASE_URL: url, PASSWORD_HASH_COST: '10', WORKER_POLL_MS: '20', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  for (let i = 0; i < 300; i++) {
    if (out.includes('admin key:')) return { child, output: () => out };
    if (child.exitCode !== null) throw new Error(`server exited: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start: ${out}`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

/** A running job as a killed process leaves it: locked by its worker id, lease until `lockedUntil`. */
async function leftRunning(database: Database, lockedBy: string, lockedUntil: Date): Promise<number> {
  const now = new Date();
  const row = await database.db
    .insertInto('jobs')
    .values({
      kind: SWEEP_JOB,
      payload: '{}',
      run_at: new Date(now.getTime() - 60_000).toISOString(),
      status: 'running',
      attempts: 1,
      max_attempts: 10,
      dedupe_key: null,
      locked_by: lockedBy,
      locked_until: lockedUntil.toISOString(),
      last_error: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

const job = (database: Database, id: number) =>
  database.db.selectFrom('jobs').select(['status', 'attempts', 'locked_by', 'locked_until']).where('id', '=', id).executeTakeFirstOrThrow();

async function waitDone(database: Database, id: number, withinMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    if ((await job(database, id)).status === 'done') return Date.now() - started;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`job ${id} not done within ${withinMs} ms: ${JSON.stringify(await job(database, id))}`);
}

describe(`restart after kill -9: the instance takes back its running jobs at once (${testDialect})`, () => {
  it('a job left running by the killed process is done within seconds of the restart, not after its lease', async () => {
    const database = await openDatabase(url);
    let server: { child: ChildProcess; output: () => string } | undefined;
    try {
      await migrateToLatest(database);
      const anHour = new Date(Date.now() + 3600_000);
      const mine = await leftRunning(database, `${INSTANCE}/99999-deadbeef`, anHour);
      // SQLite has one writer, so one instance: whatever it finds running is a dead process's, whatever its id.
      const otherOnSqlite = testDialect === 'sqlite' ? await leftRunning(database, 'another-host:8080/4242-cafebabe', anHour) : undefined;

      server = await start({ PORT: String(await freePort()), INSTANCE_ID: INSTANCE, JOB_LEASE_MS: String(LEASE_MS) });
      expect(await waitDone(database, mine, 5000)).toBeLessThan(5000);
      const taken = await job(database, mine);
      expect(taken.attempts).toBe(2);
      expect(taken.locked_by).toMatch(new RegExp(`^${INSTANCE.replace(/\./g, '\\.')}/\\d+-[0-9a-f]{8}$`));
      expect(taken.locked_by).not.toBe(`${INSTANCE}/99999-deadbeef`);
      if (otherOnSqlite !== undefined) expect((await job(database, otherOnSqlite)).status).toBe('done');
      expect(server.output()).toContain("took back the running jobs of this instance's previous process");

      if (testDialect === 'postgres') {
        // Another instance died holding a job (its JOB_LEASE_MS lease just taken): that instance
        // may as well be alive, so this one waits for the lease instead of taking it back.
        const leaseEnds = new Date(Date.now() + LEASE_MS);
        const theirs = await leftRunning(database, 'another-instance:8080/4242-cafebabe', leaseEnds);
        await new Promise((r) => setTimeout(r, LEASE_MS / 2));
        if (Date.now() < leaseEnds.getTime() - 100) expect((await job(database, theirs)).status).toBe('running');
        await waitDone(database, theirs, LEASE_MS + 3000);
        expect(Date.now()).toBeGreaterThanOrEqual(leaseEnds.getTime());
        expect((await job(database, theirs)).attempts).toBe(2);
      }
    } finally {
      if (server) await stop(server.child);
      await database.close();
    }
  });
});
