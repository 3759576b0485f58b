import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { Receiver } from './receiver.js';
import { until } from './support.js';

/**
 * The real server process, killed with deliveries pending (SIGKILL: no graceful shutdown), and
 * started again on the same embedded database: everything arrives. SQLite only, like the start
 * test; the same recovery runs on both engines in durability.test.ts.
 */
const root = join(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'gateway-webhooks-restart-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function start(port: number): Promise<{ child: ChildProcess; output: () => string; base: string }> {
  // node itself runs the server (tsx as a loader, not as a parent process), so SIGKILL kills the server.
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/server.ts')], {
    cwd: root,
    env: { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dataDir, 'gateway.db')}`, PASSWORD_HASH_COST: '10', WORKER_POLL_MS: '20', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  for (let i = 0; i < 200; i++) {
    if (out.includes('admin key:')) return { child, output: () => out, base: `http://127.0.0.1:${port}` };
    if (child.exitCode !== null) throw new Error(`server exited: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start: ${out}`);
}

/** Delivery jobs back to pending with their first attempt recorded, read from the database file. */
function scheduledRetries(): number {
  const db = new SQLite(join(dataDir, 'gateway.db'), { readonly: true });
  try {
    const row = db
      .prepare("select count(*) as n from jobs j join webhook_notifications n on j.payload = '{\"id\":' || n.id || '}' where j.kind = 'webhook.deliver' and j.status = 'pending' and n.attempts = 1")
      .get() as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

const field = (output: string, name: string) => new RegExp(`${name}:\\s+(\\S+)`).exec(output)![1];

async function call(base: string, path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? (init.body ? 'POST' : 'GET'),
    headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...(init.body ? { 'content-type': 'application/json' } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.status, json: (await res.json()) as any };
}

describe.runIf(testDialect === 'sqlite')('webhooks across a server crash (embedded database)', () => {
  it('delivers every pending notification after the process is killed and started again', async () => {
    const receiver = await new Receiver().start();
    receiver.respond = () => 503;
    const first = await start(18441);
    try {
      const login = { userName: field(first.output(), 'userName'), password: field(first.output(), 'password') };
      const account = field(first.output(), 'accountNumber');
      const itoken = (await call(first.base, '/integration/api/authentication/login', { body: login })).json.accessToken;
      const gtoken = (await call(first.base, '/gateway/api/auth/token', { body: login })).json.accessToken;
      expect((await call(first.base, `/integration/api/webhooks/subscriptions?accountNumber=${account}`, { token: itoken, body: { url: receiver.url('/hooks') } })).status).toBe(200);
      for (let i = 0; i < 3; i++) {
        const card = await call(first.base, '/gateway/v1/tokens/cards', { token: gtoken, body: { cardNumber: '4111111111111111', expirationMonth: '12', expirationYear: '2035' } });
        const payment = await call(first.base, '/gateway/v1/payments', {
          token: gtoken,
          body: {
            payment: { transactionType: 'credit', amount: 1000 + i, productType: 'avista', installments: 1 },
            sellerInfo: { codeAntiFraud: '3fa85f64-5717-4562-b3fc-2c963f66afa6' },
            cardInfo: { numberToken: card.json.numberToken, cardholderName: 'MARIA SILVA' },
          },
        });
        expect(payment.status).toBe(201);
      }
      // The worker tried each once (503): all three wait for a retry about a minute later. Kill
      // only once that is recorded (a kill in the middle of recording is the lease's case,
      // covered in durability.test.ts and test/jobs/restart-takeover.test.ts: a restart takes such jobs back at once).
      await until('three failed first attempts', () => new Set(receiver.on('/hooks').map((r) => r.json.movementId)).size === 3, 10_000);
      await until('three retries scheduled', () => scheduledRetries() === 3, 10_000);
      first.child.kill('SIGKILL');
      await new Promise((r) => first.child.once('exit', r));

      receiver.respond = () => 200;
      receiver.received.length = 0;
      const second = await start(18442);
      try {
        const admin = field(second.output(), 'admin key');
        expect((await call(second.base, '/sandbox/clock/advance', { token: admin, body: { minutes: 2 } })).status).toBe(200);
        await until('the three notifications', () => new Set(receiver.on('/hooks').map((r) => r.json.movementId)).size === 3, 10_000);
        const itoken2 = (await call(second.base, '/integration/api/authentication/login', { body: login })).json.accessToken;
        const log = await call(second.base, `/integration/api/webhooks/deliveries?accountNumber=${account}`, { token: itoken2 });
        expect(log.json.items.map((d: any) => d.status)).toEqual(['Delivered', 'Delivered', 'Delivered']);
        expect(log.json.items.every((d: any) => d.attempts.map((a: any) => a.statusCode).join() === '503,200')).toBe(true);
      } finally {
        second.child.kill('SIGTERM');
        await new Promise((r) => second.child.once('exit', r));
      }
    } finally {
      if (first.child.exitCode === null) first.child.kill('SIGKILL');
      await receiver.stop();
    }
  });
});
