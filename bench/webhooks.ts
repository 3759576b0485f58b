/**
 * Webhook deliveries (PERFORMANCE.md "webhook deliveries"): 20,000 events for one account, a
 * local receiver answering 200, deliveries/s and the delay from event to receipt.
 *
 *   npx tsx bench/webhooks.ts [sqlite|postgres] [events]
 *
 Three phases on one database:
 *   1. backlog: the server runs as ROLE=api while 20,000 card payments are made over HTTP (vault
 *      cards spread over 1,000 cards, velocity limits raised; each one a TransactionStatus
 *      notification, nothing delivered), then restarts as ROLE=worker: deliveries/s to drain the
 *      whole backlog (a receiver that was down, or an outage of the workers);
 *   2. steady: a gateway process (bench/webhook-source.ts, context and worker) writes 1,000
 *      events/s, one per transaction, through the outbox function the payments use
 *      (recordNotifications), and delivers them: the rate is the delivery engine's, not the
 *      payment path's; the delay from each event's moment (the gateway's clock) to its receipt
 *      (the receiver's clock, same machine);
 *   3. payments: ROLE=all, 20,000 card payments as fast as 32 connections make them, delivered
 *      while they are made: the same delay with real payments as the source.
 * The receiver counts every webhook-id: a duplicate would be reported. The receiver and
 * autocannon share this 2-core machine with the server.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { benchDatabase, cpf, json, root, startServer, type RunningServer, visaNumber } from './support.js';

const engine = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const EVENTS = Number(process.argv[3] ?? 20_000);
const CARDS = 1000;
const STEADY_RATE = 1000;

/** The local receiver: 200 to everything, delay and duplicate bookkeeping. */
function receiver() {
  const state = { count: 0, duplicates: 0, delays: [] as number[], first: 0, last: 0, seen: new Set<string>() };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = performance.timeOrigin + performance.now();
      const id = String(req.headers['webhook-id']);
      if (state.seen.has(id)) state.duplicates++;
      state.seen.add(id);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      state.delays.push(now - Date.parse(body.moment));
      if (state.count === 0) state.first = now;
      state.last = now;
      state.count++;
      res.writeHead(200).end();
    });
  });
  return {
    state,
    reset() {
      Object.assign(state, { count: 0, duplicates: 0, delays: [], first: 0, last: 0 });
    },
    listen: () => new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port))),
    close: () => new Promise((r) => server.close(r)),
  };
}

async function waitFor(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function setup(server: RunningServer, hookUrl: string) {
  const admin = { authorization: `Bearer ${server.adminKey}`, 'content-type': 'application/json' };
  const merchant = await json(await fetch(`${server.url}/admin/merchants`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'Bench Store', documentNumber: '11222333000181' }) }));
  const credential = await json(
    await fetch(`${server.url}/admin/merchants/${merchant.merchantId}/credentials`, { method: 'POST', headers: admin, body: JSON.stringify({ scopes: ['payments', 'integration'] }) }),
  );
  await json(
    await fetch(`${server.url}/admin/merchants/${merchant.merchantId}/antifraud`, {
      method: 'PUT',
      headers: admin,
      body: JSON.stringify({ velocity: { maxPerCard: 1_000_000, maxPerDocument: 1_000_000, maxPerIp: 1_000_000 } }),
    }),
  );
  const login = JSON.stringify({ userName: credential.userName, password: credential.password });
  const gateway = await json(await fetch(`${server.url}/gateway/api/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: login }));
  const integration = await json(await fetch(`${server.url}/integration/api/authentication/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: login }));
  const headers = { authorization: `Bearer ${gateway.accessToken}`, 'content-type': 'application/json' };
  await json(
    await fetch(`${server.url}/integration/api/webhooks/subscriptions?accountNumber=${merchant.accountNumber}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${integration.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: hookUrl }),
    }),
  );
  const bodies: string[] = [];
  for (let i = 0; i < CARDS; i++) {
    const v = await json(
      await fetch(`${server.url}/gateway/v1/vaults/cards`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ cardNumber: visaNumber(2_000_000 + i), expirationMonth: '12', expirationYear: '2035', cardholderName: 'BENCH BUYER' }),
      }),
    );
    bodies.push(
      JSON.stringify({
        payment: { transactionType: 'credit', amount: 1000 + i, productType: 'avista', installments: 1 },
        sellerInfo: { codeAntiFraud: '3fa85f64-5717-4562-b3fc-2c963f66afa6' },
        cardInfo: { vaultId: v.vaultId, cardholderName: 'BENCH BUYER' },
        customer: { documentType: 'cpf', documentNumber: cpf(i), email: `buyer${i}@example.com`, ipAddress: `198.51.${i % 250}.${(i * 7) % 250}`, country: 'BR' },
      }),
    );
  }
  return { headers, bodies, merchantId: merchant.merchantId as string, accountNumber: merchant.accountNumber as number };
}

/** `count` events at `rate`/s written by a gateway process of their own (bench/webhook-source.ts), which also delivers them. */
async function paced(databaseUrl: string, account: { merchantId: string; accountNumber: number }, count: number, rate: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench/webhook-source.ts')], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      GATEWAY_MODE: 'sandbox',
      ADMIN_API_KEY: 'bench-admin-key-0123456789abcdefghij',
      MERCHANT_ID: account.merchantId,
      ACCOUNT_NUMBER: String(account.accountNumber),
      COUNT: String(count),
      RATE: String(rate),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const produced = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      const match = /produced (\d+)/.exec(String(d));
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`webhook source exited with ${code}`)));
  });
  return {
    rate: produced,
    stop: () => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill('SIGTERM')))),
  };
}

/** `count` payments (one TransactionStatus event each), at `rate` per second overall (0 = as fast as 32 connections go). */
async function payments(server: RunningServer, headers: Record<string, string>, bodies: string[], count: number, rate: number) {
  let next = 0;
  const started = performance.now();
  const result = await autocannon({
    url: `${server.url}/gateway/v1/payments`,
    connections: rate ? 16 : 32,
    amount: count,
    ...(rate ? { overallRate: rate } : {}),
    requests: [{ method: 'POST', headers, setupRequest: (req: any) => ({ ...req, body: bodies[next++ % bodies.length] }) }],
  });
  const seconds = (performance.now() - started) / 1000;
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`payments failed: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { seconds, rate: count / seconds };
}

/** Runs a producer and waits for its events' receipts: source rate, delivery rate, delays. */
async function measure(hooks: ReturnType<typeof receiver>, count: number, produce: () => Promise<{ rate: number; stop?: () => Promise<void> }>) {
  hooks.reset();
  const produced = await produce();
  await waitFor(`${count} deliveries`, () => hooks.state.count >= count, 300_000);
  await produced.stop?.();
  const seconds = (hooks.state.last - hooks.state.first) / 1000;
  const delays = [...hooks.state.delays].sort((a, b) => a - b);
  const duplicates = hooks.state.duplicates;
  return {
    line: (name: string) =>
      `${name}: events ${produced.rate.toFixed(0)}/s, deliveries ${(count / seconds).toFixed(0)}/s, ` +
      `event-to-receipt p50 ${percentile(delays, 50).toFixed(0)} ms, p99 ${percentile(delays, 99).toFixed(0)} ms, max ${delays.at(-1)!.toFixed(0)} ms, duplicates ${duplicates}`,
  };
}

async function main() {
  const hooks = receiver();
  const port = await hooks.listen();
  const hookUrl = `http://127.0.0.1:${port}/hooks`;
  const { url: databaseUrl, cleanup } = await benchDatabase(engine, 'webhooks');
  const env = { DATABASE_URL: databaseUrl, GATEWAY_MODE: 'sandbox' };
  let running: RunningServer | undefined;
  const start = async (role: string, port: number) => (running = await startServer({ ...env, ROLE: role }, port));
  const stop = async () => {
    await running?.stop();
    running = undefined;
  };
  try {
    // Phase 1: the backlog is written with no worker running, then drained by a worker alone.
    const api = await start('api', 18960);
    const { headers, bodies, ...account } = await setup(api, hookUrl);
    const made = await payments(api, headers, bodies, EVENTS, 0);
    await stop();
    await start('worker', 18961);
    const ready = performance.now();
    await waitFor(`${EVENTS} deliveries`, () => hooks.state.count >= EVENTS, 600_000);
    const drainSeconds = (hooks.state.last - (performance.timeOrigin + ready)) / 1000;
    const backlog = { duplicates: hooks.state.duplicates, seconds: drainSeconds, rate: EVENTS / drainSeconds };
    await stop();

    // Phase 2: events written at a steady 1,000/s by the process that delivers them.
    const steady = await measure(hooks, EVENTS, () => paced(databaseUrl, account, EVENTS, STEADY_RATE));
    // Phase 3: real payments as the source, as fast as they go, delivered by the same process.
    const all = await start('all', 18962);
    const real = await measure(hooks, EVENTS, () => payments(all, headers, bodies, EVENTS, 0));
    await stop();

    console.log(`webhook deliveries benchmark: ${engine}, ${EVENTS} events (card payments) for one account, local receiver answering 200`);
    console.log('(the receiver and autocannon share this 2-core machine with the server)');
    console.log(`payments that made the backlog (ROLE=api): ${made.rate.toFixed(0)}/s`);
    console.log(
      `backlog drained by ROLE=worker:  ${backlog.rate.toFixed(0)} deliveries/s (${EVENTS} in ${backlog.seconds.toFixed(1)} s after /readyz), duplicates ${backlog.duplicates}`,
    );
    console.log(steady.line(`steady ${STEADY_RATE} events/s (one process writes and delivers)`));
    console.log(real.line('card payments at full speed (ROLE=all)'));
  } finally {
    await stop();
    await hooks.close();
    await cleanup();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
