/**
 * Conciliation searches on a large table (issues 5 and 16), served over HTTP by the real server
 * (a child process, as ROLE=all): 1,000,000 installment records of one account over a year plus
 * 10 other accounts (20,000 each), bulk inserted (not HTTP); then each search 20 times after 3
 * warm-ups, one request at a time on a kept-alive connection, timed to the last byte of the
 * answer (the client only counts the bytes). Range searches cover 31 days (~90,000 records);
 * "1 day" is one busy day (~3,000 records). Also printed: the server's CPU time per request and
 * its resident memory while answering, above its idle level (from /proc), the load average,
 * and a same-run ceiling (a bare node:http server answering 40 MB to the same client).
 *
 *   npx tsx bench/conciliation.ts [sqlite|postgres]
 *   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres (a fresh database is created and dropped; BENCH_KEEP_DB=1 keeps it)
 *   BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server; CONCIL_PAGE_ROWS is
 *   passed on.
 */
import { randomInt } from 'node:crypto';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql, type Insertable } from 'kysely';
import { openDatabase } from '../src/db/connection.js';
import type { ReceivablesTable } from '../src/db/schema.js';
import { DEFAULT_PRICING } from '../src/domain/fees.js';
import { buildReceivables, type Sale } from '../src/modules/settlement/receivables.js';
import { bareCeiling, benchDatabase, closeReadAll, cpuMs, json, readAll, rssMb, startServer } from './support.js';

const engine = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const MAIN_ROWS = 1_000_000;
const OTHER_ROWS = 20_000;
const YEAR_MS = 365 * 86_400_000;
const START = Date.parse('2026-01-01T00:00:00Z');
const BATCH = 500;
const RUNS = Number(process.env.BENCH_RUNS ?? 20);

function* sales(account: number, merchantId: string, rows: number): Generator<Insertable<ReceivablesTable>> {
  let made = 0;
  for (let i = 0; made < rows; i++) {
    const installments = (i % 6) + 1;
    const at = new Date(START + Math.floor((made / rows) * YEAR_MS) + randomInt(60_000)).toISOString();
    const sale: Sale = {
      sourceType: 'card', sourceId: `${account}-${i}`, merchantId, accountNumber: account, transactionAt: at,
      cardNumber: '4111*******1111', cardName: 'VISA', codAuth: `A${String(i % 100_000).padStart(5, '0')}`, nsu: `${account}${String(i).padStart(9, '0')}`,
      reference: `order-${i}`, amountCents: BigInt(1000 + (i % 50_000)), installments, splits: [], status: 'A',
    };
    for (const row of buildReceivables(sale, DEFAULT_PRICING)) {
      if (made++ >= rows) return;
      yield row;
    }
  }
}


async function main() {
  const { url, cleanup } = await benchDatabase(engine, 'concil');
  const port = 20_000 + randomInt(20_000);
  const server = await startServer({ DATABASE_URL: url, GATEWAY_MODE: 'sandbox', CONCIL_MAX_RANGE_DAYS: '31' }, port);
  const database = await openDatabase(url);
  const db = database.db;
  try {
    const admin = { authorization: `Bearer ${server.adminKey}`, 'content-type': 'application/json' };
    const merchant = await json(await fetch(`${server.url}/admin/merchants`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'Bench Store', documentNumber: '11222333000181' }) }));
    const credential = await json(await fetch(`${server.url}/admin/merchants/${merchant.merchantId}/credentials`, { method: 'POST', headers: admin, body: JSON.stringify({ scopes: ['integration'] }) }));
    const { accessToken } = await json(await fetch(`${server.url}/integration/api/authentication/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userName: credential.userName, password: credential.password }) }));
    const headers = { authorization: `Bearer ${accessToken}` };
    const MAIN = Number(merchant.accountNumber);

    const t0 = Date.now();
    const accounts: [number, string, number][] = [[MAIN, merchant.merchantId, MAIN_ROWS], ...Array.from({ length: 10 }, (_, k): [number, string, number] => [900_001 + k, `mer_other_${k}`, OTHER_ROWS])];
    for (const [account, merchantId, rows] of accounts) {
      const batch: Insertable<ReceivablesTable>[] = [];
      await db.transaction().execute(async (trx) => {
        for (const row of sales(account, merchantId, rows)) {
          batch.push(row);
          if (batch.length === BATCH) await trx.insertInto('receivables').values(batch.splice(0)).execute();
        }
        if (batch.length > 0) await trx.insertInto('receivables').values(batch.splice(0)).execute();
      });
    }
    if (engine === 'postgres') await sql`analyze receivables`.execute(db);
    else await sql`analyze`.execute(db);
    const load = loadavg().map((l) => l.toFixed(2)).join(' ');
    console.log(`${engine}: loaded ${MAIN_ROWS + 10 * OTHER_ROWS} rows in ${((Date.now() - t0) / 1000).toFixed(1)} s; load average ${load}`);

    // The same-run ceiling: a bare node:http server answering a 40 MB body in 64 KB chunks, read by this client.
    const ceiling = await bareCeiling();
    console.log(`ceiling: bare node:http, 40 MB in 64 KB writes, read to the last byte: ${ceiling.toFixed(0)} MB/s`);

    const probe = await db.selectFrom('receivables').select(['nsu', 'cod_auth', 'transaction_at']).where('account_number', '=', MAIN).where('transaction_at', '>=', '2026-06-15').orderBy('transaction_at').limit(1).executeTakeFirstOrThrow();
    const range = { accountNumber: String(MAIN), startDate: '2026-06-01', endDate: '2026-07-01' };
    const day = { accountNumber: String(MAIN), startDate: '2026-06-10', endDate: '2026-06-10' };
    const base = `${server.url}/integration/api/transaction/concil`;
    const q = (o: Record<string, string>) => new URLSearchParams(o).toString();
    const cases: [string, string][] = [
      ['search-by-code', `search-by-code?${q({ accountNumber: String(MAIN), nsu: probe.nsu, codAuth: probe.cod_auth })}`],
      ['search-by-auth-code', `search-by-auth-code?${q({ accountNumber: String(MAIN), codAuth: probe.cod_auth, operationDate: probe.transaction_at.slice(0, 10) })}`],
      ['search-by-operation-date, 1 day', `search-by-operation-date-installments?${q(day)}`],
      ['search-by-operation-date', `search-by-operation-date?${q(range)}`],
      ['search-by-operation-date-installments', `search-by-operation-date-installments?${q(range)}`],
      ['search-by-payment-date', `search-by-payment-date?${q(range)}`],
    ];
    console.log(`| search (HTTP, time to last byte) | records | MB | p50 | p95 | records/s (p50) | server CPU / request | server RSS peak - idle (anon) |`);
    console.log('|---|---|---|---|---|---|---|---|');
    for (const [name, path] of cases) {
      const first = await readAll('POST', `${base}/${path}`, headers, true);
      if (first.status !== 200) throw new Error(`${name}: ${first.status} ${first.body!.toString().slice(0, 300)}`);
      const count = (JSON.parse(first.body!.toString()) as unknown[]).length;
      for (let i = 0; i < 2; i++) await readAll('POST', `${base}/${path}`, headers, false);
      const idle = rssMb(server.pid);
      const idleAnon = rssMb(server.pid, 'RssAnon');
      let peak = idle;
      let peakAnon = idleAnon;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssMb(server.pid));
        peakAnon = Math.max(peakAnon, rssMb(server.pid, 'RssAnon'));
      }, 10);
      const cpu0 = cpuMs(server.pid);
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const s = performance.now();
        const r = await readAll('POST', `${base}/${path}`, headers, false);
        times.push(performance.now() - s);
        if (r.bytes !== first.bytes) throw new Error(`${name}: ${r.bytes} bytes, first run ${first.bytes}`);
      }
      const cpu = (cpuMs(server.pid) - cpu0) / RUNS;
      clearInterval(sampler);
      times.sort((a, b) => a - b);
      const p50 = times[Math.floor(RUNS / 2)];
      const p95 = times[Math.min(RUNS - 1, Math.ceil(RUNS * 0.95) - 1)];
      console.log(
        `| ${name} | ${count} | ${(first.bytes / 1e6).toFixed(1)} | ${p50.toFixed(1)} ms | ${p95.toFixed(1)} ms | ${Math.round(count / (p50 / 1000)).toLocaleString('en')} | ${cpu.toFixed(0)} ms | ${(peak - idle).toFixed(0)} MB (${(peakAnon - idleAnon).toFixed(0)} MB) |`,
      );
    }
    console.log(`load average at the end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    closeReadAll();
    await database.close();
    await server.stop();
    await cleanup();
  }
}

/** MB/s of a bare node:http answer of 40 MB, read by this client: what this machine's loopback and client allow now. */
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
