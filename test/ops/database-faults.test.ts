import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardNumber as card } from '../support/cards.js';
import { TEST_DATABASE_URL, testDialect } from '../support/database.js';

/**
 * Database faults against the real server process on PostgreSQL: every backend terminated
 * (what a restart, a failover or a DBA does) during a payment burst and a billing run, and a
 * network that silently stops forwarding. The process stays up, every request is answered (2xx,
 * or 503 with Retry-After and the error array), and afterwards every payment and billing exists
 * exactly once.
 */
const root = join(import.meta.dirname, '../..');
const PORT = 18471;
const base = `http://127.0.0.1:${PORT}`;
const ADMIN = 'faults-admin-key-0123456789abcdefghijklmn';

/** A TCP proxy to PostgreSQL that can stop forwarding (reads paused both ways: the bytes wait, nothing answers). */
class Proxy {
  private server = net.createServer((client) => this.accept(client));
  private readonly sockets = new Set<net.Socket>();
  private stalled = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  private accept(client: net.Socket): void {
    const upstream = net.connect(this.target.port, this.target.host);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(from);
      from.pipe(to);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        this.sockets.delete(from);
        to.destroy();
      });
      if (this.stalled) from.pause();
    }
  }

  stall(): void {
    this.stalled = true;
    for (const socket of this.sockets) socket.pause();
  }

  resume(): void {
    this.stalled = false;
    for (const socket of this.sockets) socket.resume();
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe.runIf(testDialect === 'postgres')('database faults (PostgreSQL, real server process)', () => {
  const dbName = `gw_faults_${randomBytes(4).toString('hex')}`;
  const target = new URL(TEST_DATABASE_URL);
  let admin: pg.Client;
  let proxy: Proxy;
  let child: ChildProcess;
  let output = '';

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`create database ${dbName}`);
    proxy = await new Proxy({ host: target.hostname, port: Number(target.port || 5432) }).start();
    const url = new URL(TEST_DATABASE_URL);
    url.host = `127.0.0.1:${proxy.port}`;
    url.pathname = `/${dbName}`;
    child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/server.ts')], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        PORT: String(PORT),
        HOST: '127.0.0.1',
        DATABASE_URL: url.toString(),
        ADMIN_API_KEY: ADMIN,
        PASSWORD_HASH_COST: '10',
        WORKER_POLL_MS: '20',
        LOG_LEVEL: 'warn',
        DB_CONNECT_TIMEOUT_MS: '1000',
        DB_STATEMENT_TIMEOUT_MS: '1000',
        // A job whose outcome could not be recorded (the database went away mid-job) is taken
        // back when its lease ends: a short lease keeps that wait inside the test's time.
        JOB_LEASE_MS: '3000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (output = (output + d).slice(-50_000)));
    child.stderr!.on('data', (d) => (output = (output + d).slice(-50_000)));
    await until(async () => (await fetch(`${base}/readyz`).catch(() => null))?.status === 200, 30_000, () => `the server to start: ${output}`);
  }, 60_000);

  afterAll(async () => {
    child?.kill('SIGKILL');
    await proxy?.stop();
    await admin?.query(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin?.end();
  });

  const json = { 'content-type': 'application/json' };
  const adminHeaders = { ...json, authorization: `Bearer ${ADMIN}` };
  const post = (path: string, body: unknown, headers: Record<string, string>) => fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });

  async function merchantWithToken() {
    const merchant: any = await (await post('/admin/merchants', { name: 'Faults Store', documentNumber: '11222333000181' }, adminHeaders)).json();
    const credential: any = await (await post(`/admin/merchants/${merchant.merchantId}/credentials`, { scopes: ['payments', 'recurrence', 'integration'] }, adminHeaders)).json();
    await fetch(`${base}/admin/merchants/${merchant.merchantId}/antifraud`, { method: 'PUT', headers: adminHeaders, body: JSON.stringify({ velocity: { maxPerCard: 1e6, maxPerDocument: 1e6, maxPerIp: 1e6 } }) });
    const { accessToken }: any = await (await post('/gateway/api/auth/token', { userName: credential.userName, password: credential.password }, json)).json();
    return { ...json, authorization: `Bearer ${accessToken}` };
  }

  /** An answer is acceptable when it is a success, or a 503 that says why and when to retry. */
  async function expectAnswered(res: Response | null, what: string): Promise<number> {
    expect(res, `${what}: no answer at all`).not.toBeNull();
    if (res!.status === 503) {
      expect(res!.headers.get('retry-after'), what).toMatch(/^\d+$/);
      const body: any = await res!.json();
      expect(body[0].tag, what).toBe('database_unavailable');
    } else {
      expect(res!.status, `${what}: ${await res!.clone().text()}`).toBeLessThan(300);
    }
    return res!.status;
  }

  it('survives every backend terminated three times during a payment burst and a billing run: each payment and billing exactly once', async () => {
    const headers = await merchantWithToken();
    const vaults: string[] = [];
    for (let i = 0; i < 60; i++) {
      const cardNumber = card(`4${String(7_000_000 + i).padStart(14, '0')}`);
      vaults.push(((await (await post('/gateway/v1/vaults/cards', { cardNumber, expirationMonth: '12', expirationYear: '2035', cardholderName: 'FAULT BUYER' }, headers)).json()) as any).vaultId);
    }
    const plan: any = await (await post('/gateway/v1/recurrences/plans', { name: 'Faults', description: 'Faults plan', amount: 10.5, planType: 'Monthly', paymentMethod: 'CreditCard', trialDays: 1 }, headers)).json();
    for (let i = 0; i < 40; i++) expect((await post('/gateway/v1/recurrences/subscriptions', { planId: plan, vaultId: vaults[i], orderNumber: `F-${i}` }, headers)).status).toBe(201);
    const { now }: any = await (await fetch(`${base}/sandbox/clock`, { headers: adminHeaders })).json();
    const due = new Date(Date.parse(now) + 86_400_000 + 60_000).toISOString();

    const statuses: number[] = [];
    const created: string[] = [];
    let stop = false;
    const burst = Array.from({ length: 6 }, async (_, lane) => {
      for (let k = 0; !stop; k++) {
        const i = 40 + ((lane * 7 + k) % 20);
        const res = await post('/gateway/v1/payments', { payment: { transactionType: 'credit', amount: 500 + k, productType: 'avista', installments: 1 }, sellerInfo: { codeAntiFraud: '3fa85f64-5717-4562-b3fc-2c963f66afa6' }, cardInfo: { vaultId: vaults[i], cardholderName: 'FAULT BUYER' } }, headers).catch(() => null);
        const status = await expectAnswered(res, 'payment');
        statuses.push(status);
        if (status === 201) created.push(((await res!.json()) as any).paymentId);
      }
    });
    const run = post('/sandbox/clock/advance', { to: due }, adminHeaders).catch(() => null);
    for (let round = 0; round < 3; round++) {
      await new Promise((r) => setTimeout(r, 400));
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [dbName]);
    }
    await new Promise((r) => setTimeout(r, 400));
    stop = true;
    await Promise.all(burst);
    await expectAnswered(await run, 'billing run');
    expect(child.exitCode, output).toBeNull();
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThan(10);

    // The run again (an advance cut by the fault is repeated), then everything settles. An
    // advance that was not cut has moved the clock past `due`, where `{to: due}` is a 400 (time
    // never goes back): then `{minutes: 0}` runs whatever is due by now.
    const again = async () => {
      const clock: any = await (await fetch(`${base}/sandbox/clock`, { headers: adminHeaders })).json();
      const body = Date.parse(clock.now) < Date.parse(due) ? { to: due } : { minutes: 0 };
      return (await post('/sandbox/clock/advance', body, adminHeaders)).status === 200;
    };
    await until(again, 60_000, () => 'the billing run to finish');
    const db = new pg.Client({ connectionString: `${TEST_DATABASE_URL.replace(/\/[^/]*$/, '')}/${dbName}` });
    await db.connect();
    try {
      await until(async () => Number((await db.query("select count(*) from payments where status = 'Pending'")).rows[0].count) === 0, 30_000, () => 'pending payments to settle');
      // A billing whose charge job failed with the database (or could not record its failure)
      // is retried after its backoff (10 s, then 20 s) or when its lease ends: it settles by
      // itself, later than the advance that was cut.
      const opened = "select b.billing_id, b.status, (select json_agg(json_build_object('status', j.status, 'attempts', j.attempts, 'run_at', j.run_at, 'error', j.last_error)) from jobs j where j.payload::text like '%' || b.billing_id || '%') as jobs from billings b where b.installment = 1 and b.status = 'Opened'";
      await until(async () => (await db.query(opened)).rows.length === 0, 60_000, async () => `every billing to be charged: ${JSON.stringify((await db.query(opened)).rows)}`);
      const billings = (await db.query('select b.billing_id, b.status, (select count(*) from payments p where p.billing_id = b.billing_id and p.status = $1) as paid from billings b where b.installment = 1', ['Authorized'])).rows;
      expect(billings).toHaveLength(40);
      for (const b of billings) {
        expect(b.status, b.billing_id).toBe('Paid');
        expect(Number(b.paid), b.billing_id).toBe(1);
      }
      const ids = (await db.query('select payment_id from payments where payment_id = any($1)', [created])).rows;
      expect(ids).toHaveLength(created.length);
      const ledger = (await db.query("select count(*) from sandbox_acquirer_ledger l join payments p on p.payment_id = l.idempotency_key where l.outcome = 'approved' and p.status <> 'Authorized'")).rows[0];
      expect(Number(ledger.count)).toBe(0);
    } finally {
      await db.end();
    }
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  }, 150_000);

  it('answers within its timeouts when the network stops forwarding, and is ready again by itself when it comes back', async () => {
    const headers = await merchantWithToken();
    proxy.stall();
    try {
      const started = Date.now();
      const [ready, me] = await Promise.all([fetch(`${base}/readyz`), fetch(`${base}/gateway/v1/payments/00000000-0000-4000-8000-000000000000`, { headers })]);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as any)[0].tag).toBe('database_unreachable');
      await expectAnswered(me, 'a read during the stall');
      expect(me.status).toBe(503);
      // Statement timeout 1 s + 5 s margin for an answer that never comes; connect timeout 1 s.
      expect(Date.now() - started).toBeLessThan(9_000);
    } finally {
      proxy.resume();
    }
    await until(async () => (await fetch(`${base}/readyz`)).status === 200, 15_000, () => 'ready again');
    expect((await fetch(`${base}/gateway/v1/me`, { headers })).status).toBe(200);
    expect(child.exitCode, output).toBeNull();
  }, 60_000);
});

async function until(check: () => Promise<boolean>, ms: number, what: () => string | Promise<string>): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${await what()}`);
}
