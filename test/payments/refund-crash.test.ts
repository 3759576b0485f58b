import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CieloStandIn, gatewayEnvFor } from '../standins/cielo.js';
import { TEST_DATABASE_URL, testDialect } from '../support/database.js';
import { cardNumber, GUID } from '../support/cards.js';

/**
 * The real server process, killed (SIGKILL: no graceful shutdown) while Cielo holds a refund's
 * partial void applied and unanswered, then started again on the same database: the refund,
 * recorded Pending before it was sent, is settled from the sale's VoidedAmount by its recovery
 * job. Exactly one void reached Cielo, and the refund is neither lost nor made twice. The Cielo
 * stand-in runs in this process, so it outlives the gateway as Cielo would.
 */
const root = join(import.meta.dirname, '../..');
const ADMIN = 'refund-crash-admin-key-0123456789abcdef';
const TIMEOUT_MS = 1000;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A database of its own for the server: a SQLite file, or a new PostgreSQL database beside the suite's. */
async function serverDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (testDialect === 'postgres') {
    const name = `refund_crash_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    return {
      url: TEST_DATABASE_URL.replace(/\/[^/]*$/, `/${name}`),
      drop: async () => {
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'gateway-refund-crash-'));
  return { url: `sqlite:${join(dir, 'gateway.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

describe(`a refund whose answer is lost with the process killed (${testDialect})`, () => {
  let cielo: CieloStandIn;
  let database: { url: string; drop: () => Promise<void> };
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    cielo = await new CieloStandIn({ random: () => 0 }).start();
    database = await serverDatabase();
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await cielo.stop();
    await database.drop();
  });

  async function start(): Promise<{ child: ChildProcess; base: string }> {
    const port = await freePort();
    // node runs the server itself (tsx as a loader), so SIGKILL kills the process that serves.
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/server.ts')], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: database.url,
        ADMIN_API_KEY: ADMIN,
        PASSWORD_HASH_COST: '10',
        WORKER_POLL_MS: '20',
        LOG_LEVEL: 'warn',
        ...gatewayEnvFor(cielo, TIMEOUT_MS),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 600; i++) {
      if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
      if (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)) return { child, base };
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGKILL');
    throw new Error(`server did not start: ${output}`);
  }

  const call = async (base: string, path: string, init: { method?: string; token?: string; body?: unknown } = {}) => {
    const res = await fetch(`${base}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { authorization: `Bearer ${init.token ?? ADMIN}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, json: (await res.json()) as any };
  };

  it('is settled Succeeded after the restart from the sale Cielo holds, with exactly one partial void', async () => {
    let { child, base } = await start();
    const merchant = (await call(base, '/admin/merchants', { body: { name: 'Crash Store', documentNumber: '11222333000181' } })).json;
    const credential = (await call(base, `/admin/merchants/${merchant.merchantId}/credentials`, { body: { scopes: ['payments'] } })).json;
    const login = { userName: credential.userName, password: credential.password };
    const token = async () => (await call(base, '/gateway/api/auth/token', { body: login })).json.accessToken as string;
    let gateway = await token();
    const card = (await call(base, '/gateway/v1/tokens/cards', { token: gateway, body: { cardNumber: cardNumber('4532', { last: 1 }), expirationMonth: '12', expirationYear: '2035' } })).json;
    const payment = await call(base, '/gateway/v1/payments', {
      token: gateway,
      body: {
        payment: { transactionType: 'credit', amount: 10000, productType: 'avista', installments: 1 },
        sellerInfo: { codeAntiFraud: GUID },
        cardInfo: { numberToken: card.numberToken, cardholderName: 'MARIA SILVA' },
      },
    });
    expect(payment.json.status, JSON.stringify(payment.json)).toBe('Authorized');
    const paymentId = payment.json.paymentId as string;
    const sale = () => cielo.sales().find((s) => s.MerchantOrderId === paymentId)!;

    // Cielo applies the void and never answers; the gateway is killed while it waits.
    cielo.setFaults({ voidHang: 1 });
    const answer = call(base, `/gateway/v1/payments/${paymentId}/refunds`, { token: gateway, body: { amount: 4000 } }).catch((error: Error) => error);
    for (let i = 0; i < 200 && sale().VoidedAmount === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(sale().VoidedAmount).toBe(4000);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(await answer).toBeInstanceOf(Error);

    ({ child, base } = await start());
    gateway = await token();
    const refunds = async () => (await call(base, `/gateway/v1/payments/${paymentId}/refunds`, { token: gateway })).json.items;
    // Recorded before it was sent: the refund is there, Pending, and holds the next one back.
    expect(await refunds()).toMatchObject([{ amount: 4000, status: 'Pending' }]);
    expect((await call(base, `/gateway/v1/payments/${paymentId}/refunds`, { token: gateway, body: { amount: 1000 } })).status).toBe(409);

    // Past the settle window, the recovery job (due within a minute of business time) reads the sale.
    await new Promise((r) => setTimeout(r, 2 * TIMEOUT_MS));
    expect((await call(base, '/sandbox/clock/advance', { body: { minutes: 1 } })).status).toBe(200);
    expect(await refunds()).toMatchObject([{ amount: 4000, status: 'Succeeded' }]);
    expect((await call(base, `/gateway/v1/payments/${paymentId}`, { token: gateway })).json).toMatchObject({ status: 'Authorized', refundedAmount: 4000 });
    const voids = () => cielo.requests().filter((r) => r.method === 'PUT' && r.path.startsWith(`/1/sales/${sale().PaymentId}/void`)).length;
    expect(voids()).toBe(1);

    // The next refund is one more void, counted from what the first one left.
    expect((await call(base, `/gateway/v1/payments/${paymentId}/refunds`, { token: gateway, body: { amount: 1000 } })).json).toMatchObject({ status: 'Succeeded' });
    expect(sale()).toMatchObject({ VoidedAmount: 5000 });
    expect(voids()).toBe(2);
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }, 120_000);
});
