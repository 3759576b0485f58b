/**
 * Shared bench plumbing: start the real server in a child process (the load generator must not
 * share its event loop), measure the in-run ceilings, run autocannon, print figures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import pg from 'pg';
import { Agent, createServer, request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';

export const root = join(import.meta.dirname, '..');

export interface RunningServer {
  url: string;
  adminKey: string;
  /** The server process, e.g. to read its CPU time from /proc. */
  pid: number;
  stop(): Promise<void>;
}

/**
 * The V8 flags operators run the server with: the Dockerfile's CMD and `npm start` carry the same
 * (test/packaging.test.ts holds the three together), so the benchmarks measure that process.
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=32'];

export async function startServer(env: Record<string, string>, port: number): Promise<RunningServer> {
  // BENCH_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", to profile the server;
  // BENCH_DIST=1 runs the compiled server (npm run build first), whose profile keeps line numbers.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const entry = process.env.BENCH_DIST ? [join(root, 'dist/server.js')] : ['--import', 'tsx', join(root, 'src/server.ts')];
  const child: ChildProcess = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...nodeArgs, ...entry], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ADMIN_API_KEY: 'bench-admin-key-0123456789abcdefghij', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) break;
    } catch {
      /* not yet */
    }
    if (child.exitCode !== null) throw new Error(`server exited: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    adminKey: 'bench-admin-key-0123456789abcdefghij',
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The JSON of a successful answer; anything else stops the bench with the answer's text. */
/** The Cielo stand-in (test/standins/cielo.ts) as a process of its own: it must not share the server's or the load generator's event loop. */
export async function startStandIn(latencyMs: number): Promise<{ apiUrl: string; queryUrl: string; stop(): void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'test/standins/cielo.ts'), '--port', '0', '--latency', String(latencyMs)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  for (let i = 0; i < 200 && !/query=\S+/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
  const match = /api=(\S+) query=(\S+)/.exec(out);
  if (!match) throw new Error(`the Cielo stand-in did not start: ${out}`);
  return { apiUrl: match[1], queryUrl: match[2], stop: () => child.kill('SIGTERM') };
}

export async function json(res: Response) {
  if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
  return res.json() as Promise<any>;
}

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
}

export async function load(options: autocannon.Options, warmupSeconds = 3, afterWarmup?: () => Promise<void>): Promise<Figures> {
  if (warmupSeconds > 0) await autocannon({ ...options, duration: warmupSeconds });
  await afterWarmup?.();
  const r = await autocannon(options);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, total: r.requests.total };
}

/** Ceilings in the same run: a bare node:http JSON echo and a Fastify JSON POST echo. */
export async function ceilings(connections: number, duration: number): Promise<{ bare: Figures; fastify: Figures }> {
  const body = JSON.stringify({ payment: { amount: 10000, installments: 1 }, cardInfo: { vaultId: 'x'.repeat(36) } });
  const bare = createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(data);
    });
  });
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  const post = { method: 'POST' as const, headers: { 'content-type': 'application/json' }, body, connections, duration };
  const bareFigures = await load({ url: `http://127.0.0.1:${(bare.address() as { port: number }).port}/`, ...post }, 1);
  await new Promise((r) => bare.close(r));
  const app = Fastify();
  app.post('/echo', async (request, reply) => reply.code(201).send(request.body));
  const echo = await app.listen({ port: 0, host: '127.0.0.1' });
  const fastifyFigures = await load({ url: `${echo}/echo`, ...post }, 1);
  await app.close();
  return { bare: bareFigures, fastify: fastifyFigures };
}

export function line(name: string, f: Figures): string {
  return `${name.padEnd(34)} ${f.rps.toFixed(0).padStart(7)}/s  p50 ${String(f.p50).padStart(4)} ms  p99 ${String(f.p99).padStart(4)} ms  non-2xx ${f.non2xx}  errors ${f.errors}`;
}

/** A Luhn-valid 16-digit Visa number from a serial. */
export function visaNumber(serial: number): string {
  const body = `4${String(serial).padStart(14, '0')}`;
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return body + ((10 - (sum % 10)) % 10);
}

/**
 * A Luhn-valid Visa number from a serial whose last digit is one of `digits` (Cielo's sandbox, and
 * so its stand-in, decides by the last digit: '014' approve, '2' declines with 05).
 */
export function visaNumberEndingIn(serial: number, digits: string): string {
  for (let n = serial * 10; ; n++) {
    const pan = visaNumber(n);
    if (digits.includes(pan.slice(-1))) return pan;
  }
}

/** A valid CPF from a serial (for spreading documents like honest traffic). */
export function cpf(serial: number): string {
  const base = String(100000000 + serial).slice(-9);
  const dv = (digits: string, start: number) => {
    let sum = 0;
    for (let i = 0; i < digits.length; i++) sum += Number(digits[i]) * (start - i);
    const r = sum % 11;
    return r < 2 ? 0 : 11 - r;
  };
  const d1 = dv(base, 10);
  const d2 = dv(base + d1, 11);
  return `${base}${d1}${d2}`;
}

/**
 * A fresh database for one bench run: a new SQLite file in a temp folder, or a new PostgreSQL
 * database (BENCH_POSTGRES_URL names the server) dropped by `cleanup`.
 */
export async function benchDatabase(engine: 'sqlite' | 'postgres', prefix = 'bench'): Promise<{ url: string; cleanup: () => Promise<void> }> {
  if (engine === 'postgres') {
    const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const name = `${prefix}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    return {
      url: adminUrl.replace(/\/[^/]*$/, `/${name}`),
      cleanup: async () => {
        // After the server's pool has let go of its connections (a forced drop would kill idle ones).
        await new Promise((r) => setTimeout(r, 500));
        // BENCH_KEEP_DB=1 leaves the loaded database for a look with psql afterwards.
        if (process.env.BENCH_KEEP_DB) console.log(`kept database ${name}`);
        else await admin.query(`drop database ${name} with (force)`);
        await admin.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), `gateway-${prefix}-`));
  const cleanup = async () => {
    if (process.env.BENCH_KEEP_DB) console.log(`kept database ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  };
  return { url: `sqlite:${join(dir, 'gateway.db')}`, cleanup };
}

/**
 * The database's own ceiling, measured in the same run (PERFORMANCE.md's orientation figures:
 * SQLite ~25k five-row transactions/s; PostgreSQL ~3.3k commits/s on 32 connections): a
 * scratch table in a scratch file or database, the same settings as the gateway's (SQLite: WAL,
 * synchronous NORMAL; PostgreSQL: fsync on). Transactions per second.
 */
export async function databaseCeiling(engine: 'sqlite' | 'postgres', seconds = 3): Promise<number> {
  if (engine === 'sqlite') {
    const SQLite = (await import('better-sqlite3')).default;
    const dir = mkdtempSync(join(tmpdir(), 'gateway-ceiling-'));
    const db = new SQLite(join(dir, 'ceiling.db'));
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.exec('create table t (id integer primary key, a text not null, b integer not null)');
      const insert = db.prepare('insert into t (a, b) values (?, ?)');
      const five = db.transaction((n: number) => {
        for (let i = 0; i < 5; i++) insert.run(`row ${n}-${i}`, n);
      });
      let n = 0;
      const end = performance.now() + seconds * 1000;
      while (performance.now() < end) for (let k = 0; k < 100; k++) five(n++);
      return n / seconds;
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const { url, cleanup } = await benchDatabase('postgres', 'ceiling');
  const clients = Array.from({ length: 32 }, () => new pg.Client({ connectionString: url }));
  try {
    await Promise.all(clients.map((c) => c.connect()));
    await clients[0].query('create table t (id bigserial primary key, a text not null, b bigint not null)');
    let n = 0;
    const end = performance.now() + seconds * 1000;
    await Promise.all(
      clients.map(async (c, k) => {
        while (performance.now() < end) {
          await c.query('insert into t (a, b) values ($1, $2)', [`row ${k}`, n]);
          n++;
        }
      }),
    );
    return n / seconds;
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => {})));
    await cleanup();
  }
}

/** Resident MB of a process: all of it, or the anonymous part (heap, buffers; not SQLite's mmap of the database file). */
export function rssMb(pid: number, field: 'VmRSS' | 'RssAnon' = 'VmRSS'): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
}

/** CPU time (user + system) of a process in ms, from /proc (USER_HZ 100). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** One request read to its last byte (one kept-alive connection), the body kept only when asked: the timed runs just count bytes. */
export function readAll(method: 'GET' | 'POST', url: string, headers: Record<string, string>, keep: boolean): Promise<{ status: number; bytes: number; body?: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent }, (res) => {
      let bytes = 0;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (keep) chunks.push(c);
      });
      res.on('end', () => resolve({ status: res.statusCode!, bytes, body: keep ? Buffer.concat(chunks) : undefined }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
/** Closes readAll's kept-alive connection (else it holds the bench process open). */
export const closeReadAll = () => agent.destroy();

/** The same-run ceiling of the streamed answers: a bare node:http server answering 40 MB in 64 KB writes, read to the last byte by readAll; MB/s. */
export async function bareCeiling(): Promise<number> {
  const chunk = Buffer.alloc(65_536, 'x');
  const s = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    let left = 640;
    const write = () => {
      while (left > 0) {
        left--;
        if (!res.write(chunk)) return void res.once('drain', write);
      }
      res.end();
    };
    write();
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    await readAll('GET', `http://127.0.0.1:${port}/`, {}, false);
    times.push(performance.now() - t);
  }
  await new Promise((r) => s.close(r));
  times.sort((a, b) => a - b);
  return (640 * 65_536) / 1e6 / (times[3] / 1000);
}

