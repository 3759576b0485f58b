/**
 * The crash soak: the real server process is killed with SIGKILL in the middle of a
 * billing run and of a payment burst, started again on the same database, and within 60 s of
 * the restart every billing must be Paid exactly once (or Denied for a declining card), every
 * payment settled, one acquirer sale per authorized payment and none without one, and the
 * conciliation equal to the payments. Repeated `--trials` times; not part of `npm test`.
 *
 *   npx tsx bench/crash-soak.ts [--db sqlite|postgres] [--acquirer sandbox|cielo] [--trials 10] [--subs 300] [--payments 120] [--instances 1|2] [--port 18960]
 *   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres (a fresh database per trial)
 *
 * One instance runs in sandbox mode: the billing run is a sandbox clock advance. Two instances
 * (PostgreSQL only) run in production mode (no sandbox clock): the billings fall due as they are
 * created, with the workers off, then both instances start and charge them side by side, and one
 * of them is killed and restarted while the other goes on.
 *
 * With --acquirer cielo the gateway charges through the Cielo stand-in (test/standins/cielo.ts),
 * run as a separate process that outlives the gateway's deaths, as Cielo would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/db/connection.js';
import { STANDIN_MERCHANT_ID, STANDIN_MERCHANT_KEY } from '../test/standins/cielo.js';
import { benchDatabase, cpf, json, root, visaNumber, visaNumberEndingIn } from './support.js';
import { join } from 'node:path';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    acquirer: { type: 'string', default: 'sandbox' },
    trials: { type: 'string', default: '10' },
    subs: { type: 'string', default: '300' },
    payments: { type: 'string', default: '120' },
    instances: { type: 'string', default: '1' },
    // Another port when something else (another checkout's soak) holds the default.
    port: { type: 'string', default: '18960' },
  },
});
const TWO = args.instances === '2';
if (TWO && args.db !== 'postgres') throw new Error('--instances 2 needs --db postgres (SQLite is one process)');
const engine = args.db as 'sqlite' | 'postgres';
const acquirer = args.acquirer as 'sandbox' | 'cielo';
const SUBS = Number(args.subs);
const PAYMENTS = Number(args.payments);
const DEADLINE_MS = 60_000;
const PORT = Number(args.port);
const ADMIN = 'soak-admin-key-0123456789abcdefghijklmn';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Proc {
  child: ChildProcess;
  output: () => string;
}

function spawnNode(script: string, env: Record<string, string>, args: string[] = []): Proc {
  // node runs the script itself (tsx as a loader), so SIGKILL kills the process that serves.
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, script), ...args], { cwd: root, env: { PATH: process.env.PATH!, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out = (out + d).slice(-20_000)));
  child.stderr!.on('data', (d) => (out = (out + d).slice(-20_000)));
  return { child, output: () => out };
}

async function waitFor(check: () => Promise<boolean> | boolean, ms: number, what: string | (() => string)): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
}

const base = `http://127.0.0.1:${PORT}`;
/** The second instance (--instances 2): never killed. */
const otherBase = `http://127.0.0.1:${PORT + 1}`;
const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };

async function startGateway(env: Record<string, string>): Promise<Proc> {
  const proc = spawnNode('src/server.ts', env);
  try {
    await waitFor(
      async () => {
        if (proc.child.exitCode !== null) throw new Error(`gateway exited: ${proc.output()}`);
        return fetch(`http://127.0.0.1:${env.PORT}/readyz`).then((r) => r.ok, () => false);
      },
      30_000,
      'the gateway',
    );
  } catch (error) {
    // A gateway that never became ready must not keep the port: the next trial would talk to it.
    proc.child.kill('SIGKILL');
    throw error;
  }
  return proc;
}

async function trial(n: number, standin: string | undefined): Promise<Record<string, number | string>> {
  const { url: databaseUrl, cleanup } = await benchDatabase(engine, `soak${n}`);
  const env: Record<string, string> = {
    PORT: String(PORT),
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    ADMIN_API_KEY: ADMIN,
    PASSWORD_HASH_COST: '10',
    WORKER_POLL_MS: '20',
    LOG_LEVEL: 'error',
    INSTANCE_ID: 'soak-instance',
    ...(standin
      ? { ACQUIRER: 'cielo', CIELO_API_URL: standin, CIELO_QUERY_URL: queryUrl!, CIELO_MERCHANT_ID: STANDIN_MERCHANT_ID, CIELO_MERCHANT_KEY: STANDIN_MERCHANT_KEY, CIELO_ENVIRONMENT: 'sandbox', ACQUIRER_TIMEOUT_MS: '2000' }
      : { ACQUIRER: 'sandbox' }),
    // Two instances run in production mode (no sandbox clock): its settings.
    ...(TWO ? { GATEWAY_MODE: 'production', DATA_KEY: Buffer.alloc(32, 42).toString('base64'), INSTANCE_ID: 'soak-a' } : {}),
  };
  // Two instances: the set-up runs with no worker, so that every billing is still due when the run starts.
  let gateway = await startGateway(TWO ? { ...env, ROLE: 'api' } : env);
  let other: Proc | undefined;
  try {
    const merchant = await json(await fetch(`${base}/admin/merchants`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'Soak Store', documentNumber: '11222333000181' }) }));
    const credential = await json(await fetch(`${base}/admin/merchants/${merchant.merchantId}/credentials`, { method: 'POST', headers: admin, body: JSON.stringify({ scopes: ['payments', 'recurrence', 'integration'] }) }));
    await json(await fetch(`${base}/admin/merchants/${merchant.merchantId}/antifraud`, { method: 'PUT', headers: admin, body: JSON.stringify({ velocity: { maxPerCard: 1_000_000, maxPerDocument: 1_000_000, maxPerIp: 1_000_000 } }) }));
    const login = JSON.stringify({ userName: credential.userName, password: credential.password });
    const token = async () => (await json(await fetch(`${base}/gateway/api/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: login }))).accessToken as string;
    let headers = { authorization: `Bearer ${await token()}`, 'content-type': 'application/json' };

    // One subscription in ten has a declining card (Denied 05): the others must end Paid.
    const declining = (i: number) => i % 10 === 9;
    const plan = await json(await fetch(`${base}/gateway/v1/recurrences/plans`, { method: 'POST', headers, body: JSON.stringify({ name: 'Soak', description: 'Soak plan', amount: 19.9, planType: 'Monthly', paymentMethod: 'CreditCard', trialDays: TWO ? 0 : 1 }) }));
    const vaults: string[] = [];
    for (let i = 0; i < SUBS + PAYMENTS; i++) {
      const cardNumber = declining(i) && i < SUBS ? (standin ? visaNumberEndingIn(n * 100_000 + i, '2') : '4000000000000002') : standin ? visaNumberEndingIn(n * 100_000 + i, '1') : visaNumber(n * 100_000 + i);
      const v = await json(await fetch(`${base}/gateway/v1/vaults/cards`, { method: 'POST', headers, body: JSON.stringify({ cardNumber, expirationMonth: '12', expirationYear: '2035', cardholderName: 'SOAK BUYER' }) }));
      vaults.push(v.vaultId);
    }
    for (let i = 0; i < SUBS; i++) {
      await json(await fetch(`${base}/gateway/v1/recurrences/subscriptions`, { method: 'POST', headers, body: JSON.stringify({ planId: plan, vaultId: vaults[i], orderNumber: `SOAK-${i}` }) }));
    }
    const now = TWO ? new Date().toISOString() : (await json(await fetch(`${base}/sandbox/clock`, { headers: admin }))).now;
    const target = new Date(Date.parse(now) + 86_400_000 + 60_000).toISOString();
    if (TWO) {
      await stop(gateway);
      // Both at once, so that both charge from the start.
      [other, gateway] = await Promise.all([startGateway({ ...env, PORT: String(PORT + 1), INSTANCE_ID: 'soak-b' }), startGateway(env)]);
    }

    // A payment burst that goes on until the kill, and the billing run in the middle of it; the
    // process is killed once a random share (10-80 %) of the billings has ended.
    let answered = 0;
    let sent = 0;
    let killed = false;
    const burst = Array.from({ length: 4 }, async () => {
      while (!killed && sent < PAYMENTS * 20) {
        const k = sent++;
        const i = SUBS + (k % PAYMENTS);
        const body = JSON.stringify({
          payment: { transactionType: 'credit', amount: 1000 + k, productType: 'avista', installments: 1 },
          sellerInfo: { codeAntiFraud: '3fa85f64-5717-4562-b3fc-2c963f66afa6' },
          cardInfo: { vaultId: vaults[i], cardholderName: 'SOAK BUYER' },
          customer: { documentType: 'cpf', documentNumber: cpf(i), email: `buyer${i}@example.com` },
          referenceTransaction: `soak-${k}`,
        });
        const res = await fetch(`${base}/gateway/v1/payments`, { method: 'POST', headers: { ...headers, 'idempotency-key': `soak-${n}-${k}` }, body }).catch(() => null);
        if (res) answered++;
      }
    });
    const started = Date.now();
    // One instance: the run starts once the burst is going. Two: the workers have started it already.
    if (!TWO) await waitFor(() => answered >= 20, 30_000, 'the payment burst to start');
    // One instance: the billing run is the sandbox clock's advance. Two: the workers are at it already.
    const advance = TWO ? Promise.resolve(null) : fetch(`${base}/sandbox/clock/advance`, { method: 'POST', headers: admin, body: JSON.stringify({ to: target }) }).catch(() => null);
    const share = 0.1 + Math.random() * 0.7;
    await waitFor(async () => (await state(databaseUrl)).ended >= share * SUBS, 30_000, 'the billing run').catch(() => undefined);
    const killAfter = Date.now() - started;
    const answeredAtKill = answered;
    gateway.child.kill('SIGKILL');
    killed = true;
    await Promise.all([advance, ...burst]);
    const { pending: pendingAtKill, openedDue: openedAtKill } = await state(databaseUrl);

    const restarted = Date.now();
    gateway = await startGateway(env);
    headers = { authorization: `Bearer ${await token()}`, 'content-type': 'application/json' };
    // The advance the dead process was making is made again (its clock offset was not saved).
    if (!TWO) await fetch(`${base}/sandbox/clock/advance`, { method: 'POST', headers: admin, body: JSON.stringify({ to: target }) });
    let settled: Awaited<ReturnType<typeof state>> | undefined;
    await waitFor(
      async () => {
        settled = await state(databaseUrl);
        return settled.openedDue === 0 && settled.pending === 0;
      },
      DEADLINE_MS - (Date.now() - restarted),
      () => `every billing and payment settled within ${DEADLINE_MS / 1000} s of the restart (${JSON.stringify(settled)})`,
    );
    const convergedMs = Date.now() - restarted;
    const report = await check(databaseUrl, merchant.accountNumber, credential, now, target, standin);
    return { trial: n, killAfterMs: killAfter, paymentsAnsweredBeforeKill: answeredAtKill, paymentsSent: sent, pendingAtKill, openedAtKill, convergedMs, ...report };
  } finally {
    await stop(gateway);
    if (other) await stop(other);
    await cleanup();
  }
}

async function stop(proc: Proc): Promise<void> {
  proc.child.kill('SIGTERM');
  await new Promise((r) => (proc.child.exitCode !== null ? r(null) : proc.child.once('exit', r)));
}

/** What the database holds: billings due and not ended, payments not settled. */
async function state(databaseUrl: string) {
  const database = await openDatabase(databaseUrl);
  try {
    const db = database.db;
    const count = async (q: Promise<{ n: unknown } | undefined>) => Number((await q)?.n ?? 0);
    const openedDue = await count(db.selectFrom('billings').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'Opened').where('installment', '=', 1).executeTakeFirst());
    const pending = await count(db.selectFrom('payments').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'Pending').executeTakeFirst());
    const ended = await count(db.selectFrom('billings').select((eb) => eb.fn.countAll().as('n')).where('status', '!=', 'Opened').where('installment', '=', 1).executeTakeFirst());
    return { openedDue, pending, ended };
  } finally {
    await database.close();
  }
}

/** Every invariant of the soak; throws on the first broken one. */
async function check(databaseUrl: string, account: number, credential: { userName: string; password: string }, from: string, to: string, standin: string | undefined) {
  const database = await openDatabase(databaseUrl);
  try {
    const db = database.db;
    const billings = await db.selectFrom('billings').select(['billing_id', 'status', 'subscription_id']).where('installment', '=', 1).execute();
    const payments = await db.selectFrom('payments').select(['payment_id', 'billing_id', 'status']).execute();
    const authorized = new Set(payments.filter((p) => p.status === 'Authorized').map((p) => p.payment_id));
    const byBilling = new Map<string, string[]>();
    for (const p of payments) if (p.billing_id) byBilling.set(p.billing_id, [...(byBilling.get(p.billing_id) ?? []), p.status]);
    let paid = 0;
    let denied = 0;
    for (const b of billings) {
      const made = byBilling.get(b.billing_id) ?? [];
      if (b.status === 'Paid') {
        paid++;
        if (made.filter((s) => s === 'Authorized').length !== 1 || made.length !== 1) throw new Error(`billing ${b.billing_id} Paid with payments ${made}`);
      } else if (b.status === 'Denied') {
        denied++;
        if (made.some((s) => s === 'Authorized')) throw new Error(`billing ${b.billing_id} Denied with an authorized payment`);
      } else throw new Error(`billing ${b.billing_id} ended ${b.status}`);
    }
    if (billings.length !== SUBS || denied !== SUBS / 10) throw new Error(`billings: ${billings.length}, paid ${paid}, denied ${denied}`);

    // One acquirer sale per authorized payment, and no approved sale without one.
    let sales: string[];
    if (standin) {
      const stats = await json(await fetch(`${standin}/__standin/stats`));
      if (Object.keys(stats.duplicates).length) throw new Error(`duplicate sales at Cielo: ${JSON.stringify(stats.duplicates)}`);
      sales = (await json(await fetch(`${standin}/__standin/sales`))).sales.filter((s: { Status: number }) => s.Status === 1 || s.Status === 2).map((s: { MerchantOrderId: string }) => s.MerchantOrderId);
    } else {
      sales = (await db.selectFrom('sandbox_acquirer_ledger').select('idempotency_key').where('outcome', '=', 'approved').execute()).map((r) => r.idempotency_key);
    }
    const salesSet = new Set(sales);
    if (sales.length !== salesSet.size || salesSet.size !== authorized.size || [...authorized].some((id) => !salesSet.has(id))) {
      throw new Error(`acquirer sales ${sales.length} (distinct ${salesSet.size}) vs authorized payments ${authorized.size}`);
    }

    // Conciliation lists exactly the authorized payments.
    const { accessToken } = await json(await fetch(`${base}/integration/api/authentication/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credential) }));
    const q = new URLSearchParams({ accountNumber: String(account), startDate: from.slice(0, 10), endDate: to.slice(0, 10) });
    const records = await json(await fetch(`${base}/integration/api/transaction/concil/search-by-operation-date?${q}`, { method: 'POST', headers: { authorization: `Bearer ${accessToken}` } }));
    const conciled = new Set<string>(records.filter((r: { cardName: string }) => r.cardName !== 'PIX').map((r: { transactionPaymentIdWeb: string }) => r.transactionPaymentIdWeb));
    if (conciled.size !== authorized.size || [...authorized].some((id) => !conciled.has(id))) throw new Error(`conciliation ${conciled.size} vs authorized ${authorized.size}`);
    return { billingsPaid: paid, billingsDenied: denied, payments: payments.length, authorized: authorized.size, acquirerSales: sales.length, conciled: conciled.size };
  } finally {
    await database.close();
  }
}

let queryUrl: string | undefined;

async function main() {
  let standin: Proc | undefined;
  let apiUrl: string | undefined;
  if (acquirer === 'cielo') {
    // Cielo answers in 20 ms here: sends are in flight when the process dies.
    standin = spawnNode('test/standins/cielo.ts', {}, ['--port', '0', '--latency', '20']);
    await waitFor(() => standin!.output().includes('listening'), 10_000, 'the Cielo stand-in');
    const line = /api=(\S+) query=(\S+)/.exec(standin.output())!;
    apiUrl = line[1];
    queryUrl = line[2];
  }
  const results: Record<string, number | string>[] = [];
  let failures = 0;
  try {
    for (let n = 1; n <= Number(args.trials); n++) {
      if (apiUrl) await fetch(`${apiUrl}/__standin/reset`, { method: 'POST' });
      try {
        const result = await trial(n, apiUrl);
        results.push(result);
        console.log(JSON.stringify(result));
      } catch (error) {
        failures++;
        console.log(JSON.stringify({ trial: n, failed: error instanceof Error ? `${error.message} ${error.stack?.split("\n").slice(1, 4).join(" ") ?? ""}` : String(error) }));
      }
    }
  } finally {
    standin?.child.kill('SIGTERM');
  }
  const converged = results.map((r) => Number(r.convergedMs)).sort((a, b) => a - b);
  console.log(
    `crash soak: ${engine}, acquirer ${acquirer}, ${TWO ? 'two instances (one killed)' : 'one instance'}, ${SUBS} billings + ${PAYMENTS} payments per trial: ${results.length}/${Number(args.trials)} trials passed; ` +
      `settled after the restart in ${converged[0] ?? '-'}..${converged[converged.length - 1] ?? '-'} ms (median ${converged[Math.floor(converged.length / 2)] ?? '-'} ms)`,
  );
  process.exit(failures ? 1 : 0);
}

void main();
