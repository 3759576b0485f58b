/**
 * The billing engine at volume: N active subscriptions whose billing
 * falls due the same day, then one sandbox clock advance of a day that charges them all, each
 * as a real card payment (anti-fraud, acquirer, events), each billing's next one issued.
 *
 *   npx tsx bench/billing-run.ts [sqlite|postgres] [subscriptions=100000]
 *   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres (a fresh database is created and dropped)
 *
 * Setup inserts the subscriptions, billings and charge jobs in batched transactions straight
 * into the tables (rows shaped exactly as the engine writes them); the run itself is the
 * engine, through POST /sandbox/clock/advance, in this process so its memory can be watched.
 * Cards: 1,000 stored cards shared by the subscriptions; anti-fraud velocity limits are raised
 * for the merchant (each card pays ~100 times in the same instant), the counts still run.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { buildApp } from '../src/http/app.js';
import { createLogger } from '../src/logger.js';
import { CHARGE_JOB, chargeKey } from '../src/modules/recurrence/engine.js';
import { benchDatabase, databaseCeiling, visaNumber } from './support.js';

const engine = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const N = Number(process.argv[3] ?? 100_000);
const CARDS = 1000;
const BATCH = 1000;
const MB = 1024 * 1024;

/**
 * Linux keeps the process's peak RSS (VmHWM); writing 5 to clear_refs resets it. A timer
 * cannot sample instead: the run is one long chain of promises, so timers wait until it ends.
 */
function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    /* not Linux: the peak printed is the process's since it started */
  }
}

function peakRss(): number | undefined {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : undefined;
  } catch {
    return undefined;
  }
}


async function main() {
  // The same-run ceiling (PERFORMANCE.md: these 2-core machines drift from run to run): the
  // target was set where SQLite did ~25k five-row transactions/s and PostgreSQL ~3.3k commits/s.
  const REFERENCE = engine === 'sqlite' ? { ceiling: 25_000, target: 60, what: 'five-row transactions/s' } : { ceiling: 3_300, target: 120, what: 'commits/s on 32 connections' };
  const ceilingBefore = await databaseCeiling(engine);
  const { url, cleanup } = await benchDatabase(engine, 'bench_billing');
  const config = loadConfig({ GATEWAY_MODE: 'sandbox', DATABASE_URL: url, ADMIN_API_KEY: 'bench-admin-key-0123456789abcdefghij', LOG_LEVEL: 'warn', PASSWORD_HASH_COST: '10' });
  const ctx = await createContext(config, { logger: createLogger('warn') });
  const app = await buildApp(ctx);
  await app.ready();
  const admin = { authorization: `Bearer ${ctx.adminApiKey}` };
  try {
    const merchant = await ctx.merchants.create({ name: 'Bench Store', documentNumber: '11222333000181' });
    const principal = { merchantId: merchant.merchantId, accountNumber: merchant.accountNumber, userName: 'bench', scopes: ['recurrence' as const] };
    const lifted = await app.inject({ method: 'PUT', url: `/admin/merchants/${merchant.merchantId}/antifraud`, headers: admin, payload: { velocity: { maxPerCard: 1_000_000, maxPerDocument: 1_000_000, maxPerIp: 1_000_000 } } });
    if (lifted.statusCode !== 200) throw new Error(lifted.body);
    const vaults: string[] = [];
    for (let i = 0; i < CARDS; i++) {
      vaults.push((await ctx.cards.createVault(merchant.merchantId, { cardNumber: visaNumber(2_000_000 + i), expirationMonth: '12', expirationYear: '2035' }, 'BENCH BUYER')).vaultId);
    }
    const planId = await ctx.recurrence.plans.create(principal, { name: 'Bench', description: 'Monthly', amount: 49.9, planType: 'Monthly', paymentMethod: 'CreditCard' });
    const plan = await ctx.database.db.selectFrom('plans').selectAll().where('plan_id', '=', planId).executeTakeFirstOrThrow();

    // Every billing 1 due in one hour: the advance of a day below charges all of them.
    const now = ctx.clock.now().toISOString();
    const due = new Date(ctx.clock.now().getTime() + 3600_000).toISOString();
    const setupStart = performance.now();
    for (let offset = 0; offset < N; offset += BATCH) {
      const size = Math.min(BATCH, N - offset);
      const subs = Array.from({ length: size }, (_, i) => ({
        subscription_id: randomUUID(),
        merchant_id: merchant.merchantId,
        account_number: merchant.accountNumber,
        plan_id: planId,
        vault_id: vaults[(offset + i) % CARDS],
        order_number: String(offset + i),
        status: 'Active',
        created_by: 'bench',
        created_at: now,
        updated_at: now,
      }));
      const billings = subs.map((s) => ({
        billing_id: randomUUID(),
        merchant_id: s.merchant_id,
        subscription_id: s.subscription_id,
        installment: 1,
        status: 'Opened',
        amount: plan.amount,
        expire_at: due,
        attempts_made: 0,
        next_attempt_at: due,
        charging_payment_id: null,
        attempts_history: '[]',
        created_by: 'bench',
        created_at: now,
        modified_by: null,
        modified_at: null,
      }));
      const jobs = billings.map((b) => ({
        kind: CHARGE_JOB,
        payload: JSON.stringify({ billingId: b.billing_id, attempt: 0 }),
        run_at: due,
        status: 'pending' as const,
        attempts: 0,
        max_attempts: 10,
        dedupe_key: chargeKey(b.billing_id, 0),
        created_at: now,
        updated_at: now,
      }));
      await ctx.database.db.transaction().execute(async (trx) => {
        await trx.insertInto('subscriptions').values(subs).execute();
        await trx.insertInto('billings').values(billings).execute();
        await trx.insertInto('jobs').values(jobs).execute();
      });
    }
    // PostgreSQL: the statistics autovacuum would have taken of 100,000 subscriptions long
    // before they fall due (it has not reached this fresh database yet). `payments` starts empty
    // here, so its own statistics come from autovacuum during the run, as in a new deployment.
    if (engine === 'postgres') await sql`analyze`.execute(ctx.database.db);
    const setupSeconds = (performance.now() - setupStart) / 1000;

    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const splitBefore = rssSplit();
    const heapBefore = process.memoryUsage().heapUsed;
    resetPeakRss();
    const cpuBefore = process.cpuUsage();
    const start = performance.now();
    const res = await app.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: admin, payload: { days: 1 } });
    const seconds = (performance.now() - start) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const rssAfter = process.memoryUsage().rss;
    const rssPeak = peakRss() ?? rssAfter;
    const splitAfter = rssSplit();
    if (res.statusCode !== 200) throw new Error(res.body);

    const count = async (table: 'billings' | 'payments', where: (q: any) => any) =>
      Number((await where(ctx.database.db.selectFrom(table).select((eb: any) => eb.fn.countAll().as('n'))).executeTakeFirstOrThrow()).n);
    const paid = await count('billings', (q) => q.where('installment', '=', 1).where('status', '=', 'Paid'));
    const issued = await count('billings', (q) => q.where('installment', '=', 2).where('status', '=', 'Opened'));
    const payments = await count('payments', (q) => q.where('billing_id', 'is not', null));
    const authorized = await count('payments', (q) => q.where('billing_id', 'is not', null).where('status', '=', 'Authorized'));

    console.log(`billing run: ${engine}, ${N} active subscriptions due the same day, ${CARDS} stored cards`);
    console.log(`  setup (batched inserts, not measured below): ${setupSeconds.toFixed(1)} s`);
    console.log(`  POST /sandbox/clock/advance {days: 1}: ${seconds.toFixed(1)} s, jobsRun ${res.json().jobsRun}, ${(paid / seconds).toFixed(0)} billings/s`);
    console.log(`  CPU of this process during the run: ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (the machine's other load shows as the difference to the run time)`);
    const ceilingAfter = await databaseCeiling(engine);
    const ceiling = (ceilingBefore + ceilingAfter) / 2;
    console.log(
      `  ceiling: ${engine} ${REFERENCE.what} ${ceilingBefore.toFixed(0)} before, ${ceilingAfter.toFixed(0)} after (the target's machine: ~${REFERENCE.ceiling}); ` +
        `the target < ${REFERENCE.target} s there is < ${((REFERENCE.target * REFERENCE.ceiling) / ceiling).toFixed(0)} s at this run's ceiling`,
    );
    console.log(`  billings Paid ${paid}, next billings issued ${issued}, payments ${payments} (Authorized ${authorized})`);
    console.log(`  RSS before ${(rssBefore / MB).toFixed(0)} MB, peak ${(rssPeak / MB).toFixed(0)} MB, after ${(rssAfter / MB).toFixed(0)} MB`);
    // File-backed pages are the database file read through mmap (SQLite's mmap_size): the kernel's, not the process's heap.
    global.gc?.();
    if (global.gc) console.log(`  heap used after a full collection: ${(heapBefore / MB).toFixed(0)} -> ${(process.memoryUsage().heapUsed / MB).toFixed(0)} MB`);
    if (splitBefore && splitAfter) console.log(`  of which anonymous (heap, buffers) ${splitBefore.anon} -> ${splitAfter.anon} MB, file-backed (mmap of the database) ${splitBefore.file} -> ${splitAfter.file} MB`);
  } finally {
    await app.close();
    await ctx.database.close();
    await cleanup();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

/** RssAnon and RssFile of this process in MB (Linux), or undefined elsewhere. */
function rssSplit(): { anon: number; file: number } | undefined {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { anon: Math.round(kb('RssAnon') / 1024), file: Math.round(kb('RssFile') / 1024) };
  } catch {
    return undefined;
  }
}
