/**
 * Bank slips: issuing over HTTP, then listings over a 31-day window in
 * an account that holds 100,000 slips.
 *
 *   npx tsx bench/bankslips.ts [sqlite|postgres] [slips to issue, 20000] [slips in the account, 100000] [days the slips spread over, 365]
 *   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres (a fresh database is created and dropped)
 *
 * 1. POST /api/billissuer/issue, 32 connections, after 1,000 warm-up slips; slips/s and p99.
 *    Registration (the job that builds barcode, line and Pix code) runs meanwhile in the same
 *    server process, as with ROLE=all; the time until every slip is registered is reported too.
 * 2. The account is topped up to 100,000 slips by inserting rows in batches (the listings read
 *    rows, however they were made), due dates spread evenly over the chosen days, the first
 *    half paid. Then 50 sequential GETs of each listing over a 31-day window, timed to the last byte: p50,
 *    p95, max; beside a same-run ceiling (a bare node:http server answering 40 MB to the same client).
 * autocannon and the bench client share the 2-core machine with the server.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { openDatabase, type Database } from '../src/db/connection.js';
import { addDays, businessDayAfter, toIsoDate } from '../src/domain/calendar.js';
import { registrationOf } from '../src/modules/bankslips/registration.js';
import { STATUS } from '../src/modules/bankslips/row.js';
import { bareCeiling, benchDatabase, closeReadAll, cpf, cpuMs, json, line, readAll, rssMb, startServer } from './support.js';
import type { BankSlipStatus } from '../src/domain/lifecycles.js';

const engine = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const ISSUE = Number(process.argv[3] ?? 20_000);
const IN_ACCOUNT = Number(process.argv[4] ?? 100_000);
const SPREAD_DAYS = Number(process.argv[5] ?? 365);
const CONNECTIONS = 32;
const WINDOW_DAYS = 31;
const LISTING_RUNS = 50;

/** A port nobody listens on: a fixed one could reach a server left over from another run, which answers /readyz just as well. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}


function issueBody(i: number, today: string): string {
  return JSON.stringify({
    value: 10 + (i % 5000) + 0.25,
    dueDate: addDays(today, 1 + (i % SPREAD_DAYS)),
    payer: { document: cpf(i), name: `Pagador ${i}`, streetAndNumber: `Rua ${i}, 100`, zipCode: '01310100', city: 'São Paulo', state: 'SP', neighborhood: 'Centro', phoneNumber: '11999990000' },
    referenceCode: `bench-${i}`,
    pix: i % 2 === 0,
  });
}

async function countByStatus(db: Database, accountNumber: number, statusBill?: BankSlipStatus): Promise<number> {
  let query = db.db.selectFrom('bankslips').select((eb) => eb.fn.countAll<number>().as('n')).where('account_number', '=', accountNumber);
  if (statusBill !== undefined) query = query.where('status_bill', '=', statusBill);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/** Inserts registered slips, due dates spread evenly; the first half paid on their due date. */
async function topUp(db: Database, merchant: { merchantId: string; accountNumber: number }, count: number, today: string): Promise<void> {
  const now = new Date().toISOString();
  const BATCH = 500;
  for (let start = 0; start < count; start += BATCH) {
    const rows = [];
    for (let i = start; i < Math.min(count, start + BATCH); i++) {
      const due = addDays(today, 1 + (i % SPREAD_DAYS));
      const value = 1000 + (i % 100_000);
      const paid = i < count / 2;
      const seq = 10_000_000 + i; // our number only: the row's own seq is generated
      const reg = registrationOf({ seq, account_number: merchant.accountNumber, due_date: due, value, pix: i % 2 }, { name: 'Bench Store', document_number: '11222333000181', city: 'São Paulo' }, '001');
      rows.push({
        id: randomUUID(), merchant_id: merchant.merchantId, account_number: merchant.accountNumber, value, issue_date: today, due_date: due,
        payer_document: cpf(i), payer_name: `Pagador ${i}`, payer_street_and_number: `Rua ${i}, 100`, payer_zip_code: '01310100', payer_city: 'São Paulo',
        payer_state: 'SP', payer_neighborhood: 'Centro', payer_phone_number: '11999990000', reference_code: `topup-${i}`, pix: i % 2,
        overdue_allow: 0, overdue_date_limit: null, overdue_penalty_percent: 0, overdue_interest_percent: 0,
        status_bill: paid ? STATUS.paid : STATUS.issued, status_integration: 2, failure_reason: null, ...reg, our_number: `9${reg.our_number.slice(1)}`,
        registered_at: now, paid_at: paid ? `${due}T12:00:00.000Z` : null, payment_date: paid ? due : null, credit_date: paid ? businessDayAfter(due) : null,
        paid_value: paid ? value : null, penalty_received: paid ? 0 : null, interest_received: paid ? 0 : null, canceled_at: null, cancellation_reason: null,
        created_at: now, updated_at: now,
      });
    }
    await db.db.insertInto('bankslips').values(rows).execute();
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * One listing, 50 times after 3 warm-ups on one kept-alive connection, timed to its last byte
 * (the client only counts bytes, as bench/conciliation.ts does: parsing 70 MB of JSON on the
 * same 2 cores would be the client's time, not the server's); the rows are counted once.
 */
async function timeListing(url: string, headers: Record<string, string>, pid: number) {
  const first = await readAll('GET', url, headers, true);
  if (first.status !== 200) throw new Error(`${first.status} ${first.body!.toString().slice(0, 300)}`);
  const rows = (JSON.parse(first.body!.toString()) as unknown[]).length;
  for (let i = 0; i < 2; i++) await readAll('GET', url, headers, false);
  // The server's resident memory while it answers, above its level after the warm-ups (all of
  // it, and the anonymous part: not SQLite's mmap of the database file).
  const idle = rssMb(pid);
  const idleAnon = rssMb(pid, 'RssAnon');
  let peak = idle;
  let peakAnon = idleAnon;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
    peakAnon = Math.max(peakAnon, rssMb(pid, 'RssAnon'));
  }, 10);
  const cpuStart = cpuMs(pid);
  const times: number[] = [];
  for (let i = 0; i < LISTING_RUNS; i++) {
    const t0 = performance.now();
    const res = await readAll('GET', url, headers, false);
    times.push(performance.now() - t0);
    if (res.bytes !== first.bytes) throw new Error(`${url}: ${res.bytes} bytes, first run ${first.bytes}`);
  }
  const cpuPerRequest = (cpuMs(pid) - cpuStart) / LISTING_RUNS;
  clearInterval(sampler);
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), max: times[times.length - 1], rows, bytes: first.bytes, cpuPerRequest, rss: peak - idle, anon: peakAnon - idleAnon };
}

async function main() {
  const { url: databaseUrl, cleanup } = await benchDatabase(engine);
  const server = await startServer({ DATABASE_URL: databaseUrl, GATEWAY_MODE: 'sandbox' }, await freePort());
  const db = await openDatabase(databaseUrl);
  try {
    const admin = { authorization: `Bearer ${server.adminKey}`, 'content-type': 'application/json' };
    const merchant = await json(await fetch(`${server.url}/admin/merchants`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'Bench Store', documentNumber: '11222333000181' }) }));
    const credential = await json(await fetch(`${server.url}/admin/merchants/${merchant.merchantId}/credentials`, { method: 'POST', headers: admin, body: JSON.stringify({ scopes: ['integration'] }) }));
    const { accessToken } = await json(await fetch(`${server.url}/integration/api/authentication/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userName: credential.userName, password: credential.password }) }));
    const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
    const { now } = await json(await fetch(`${server.url}/sandbox/clock`, { headers: admin }));
    const today = toIsoDate(new Date(now));

    const bodies = Array.from({ length: 5000 }, (_, i) => issueBody(i, today));
    let next = 0;
    const issueOptions = {
      url: `${server.url}/integration/api/billissuer/issue?accountNumber=${merchant.accountNumber}`,
      connections: CONNECTIONS,
      requests: [{ method: 'POST' as const, headers, setupRequest: (req: any) => ({ ...req, body: bodies[next++ % bodies.length] }) }],
    };
    await autocannon({ ...issueOptions, amount: 1000 });
    const started = performance.now();
    const r = await autocannon({ ...issueOptions, amount: ISSUE });
    const issuedIn = (performance.now() - started) / 1000;
    const figures = { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, total: r.requests.total };
    let pending = await countByStatus(db, merchant.accountNumber, 1);
    while (pending > 0) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      pending = await countByStatus(db, merchant.accountNumber, 1);
    }
    const registeredIn = (performance.now() - started) / 1000;
    const registered = await countByStatus(db, merchant.accountNumber, 2);

    const already = await countByStatus(db, merchant.accountNumber);
    const topUpStart = performance.now();
    await topUp(db, merchant, IN_ACCOUNT - already, today);
    const topUpSeconds = (performance.now() - topUpStart) / 1000;
    const total = await countByStatus(db, merchant.accountNumber);

    // From day 100 when the slips spread far enough (the figures in docs/performance.md); from
    // day 1 otherwise, so that a short spread (31 days: the whole account in one window) is listed.
    const start = addDays(today, SPREAD_DAYS >= 100 + WINDOW_DAYS ? 100 : 1);
    const end = addDays(start, WINDOW_DAYS - 1);
    const base = `${server.url}/integration/api/billissuer/list/by`;
    const qs = `accountNumber=${merchant.accountNumber}&startDate=${start}&endDate=${end}`;
    const ceiling = await bareCeiling();
    const listings = {
      'due-date': await timeListing(`${base}/due-date?${qs}`, headers, server.pid),
      'payment-date': await timeListing(`${base}/payment-date?${qs}`, headers, server.pid),
      'credit-date': await timeListing(`${base}/credit-date?${qs}`, headers, server.pid),
    };

    console.log(`bank slips benchmark: ${engine}; ${CONNECTIONS} connections; slips spread over ${SPREAD_DAYS} days`);
    console.log('(autocannon and the client share this 2-core machine with the server)');
    console.log(line(`POST /api/billissuer/issue x${ISSUE}`, figures));
    console.log(`  ${(ISSUE / issuedIn).toFixed(0)} slips/s wall clock (${issuedIn.toFixed(1)} s); all ${registered} registered (statusBill 2) ${registeredIn.toFixed(1)} s after the first request`);
    console.log(`  top-up by batch insert: ${IN_ACCOUNT - already} rows in ${topUpSeconds.toFixed(1)} s; slips in the account: ${total}`);
    console.log(`ceiling: bare node:http, 40 MB in 64 KB writes, read to the last byte: ${ceiling.toFixed(0)} MB/s; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    for (const [name, f] of Object.entries(listings)) {
      console.log(`GET list/by/${name.padEnd(12)} ${WINDOW_DAYS}-day window: ${String(f.rows).padStart(5)} rows, ${(f.bytes / 1e6).toFixed(2)} MB  p50 ${f.p50.toFixed(1)} ms  p95 ${f.p95.toFixed(1)} ms  max ${f.max.toFixed(1)} ms  server CPU ${f.cpuPerRequest.toFixed(1)} ms/request  ${((f.rows / f.p50) * 1000).toFixed(0)} rows/s at p50  RSS peak - idle ${f.rss.toFixed(0)} MB (anonymous ${f.anon.toFixed(0)} MB)`);
    }
    } finally {
    closeReadAll();
    await db.close();
    await server.stop();
    await cleanup();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
