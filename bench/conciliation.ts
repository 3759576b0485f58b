/**
 * Conciliation searches on a large table (issue 5): 1,000,000 installment records of one
 * account over a year plus 10 other accounts (20,000 each), bulk inserted (not HTTP); then the
 * five searches, each over a 31-day range (or one sale for the code lookups), 20 timed runs
 * after 3 warm-ups: p50 / p95 of the database reads plus the serialization to JSON text (no
 * HTTP). The range searches are the streamed path (issue 16): keyset pages of CONCIL_PAGE_ROWS
 * (default 2,000) serialized by records.ts's compiled serializers, read to the end.
 *
 *   npx tsx bench/conciliation.ts [sqlite|postgres]
 *   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test (a fresh schema is created and dropped)
 */
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Insertable } from 'kysely';
import type { AppContext } from '../src/context.js';
import { openDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { ReceivablesTable } from '../src/db/schema.js';
import { DEFAULT_PRICING } from '../src/domain/fees.js';
import type { Principal } from '../src/modules/auth/service.js';
import { buildReceivables, type Sale } from '../src/modules/settlement/receivables.js';
import { conciliationSearch } from '../src/modules/settlement/search.js';

const engine = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const MAIN = 100_001;
const MAIN_ROWS = 1_000_000;
const OTHER_ROWS = 20_000;
const YEAR_MS = 365 * 86_400_000;
const START = Date.parse('2026-01-01T00:00:00Z');
const BATCH = 500;

function* sales(account: number, rows: number): Generator<Insertable<ReceivablesTable>> {
  let made = 0;
  for (let i = 0; made < rows; i++) {
    const installments = (i % 6) + 1;
    const at = new Date(START + Math.floor((made / rows) * YEAR_MS) + randomInt(60_000)).toISOString();
    const sale: Sale = {
      sourceType: 'card', sourceId: `${account}-${i}`, merchantId: `mer_${account}`, accountNumber: account, transactionAt: at,
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
  let url: string;
  let schema: string | undefined;
  let dir: string | undefined;
  if (engine === 'postgres') {
    url = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
    schema = `bench_concil_${Date.now()}`;
  } else {
    dir = mkdtempSync(join(tmpdir(), 'concil-'));
    url = `sqlite:${join(dir, 'bench.db')}`;
  }
  const database = await openDatabase(url, { schema });
  await migrateToLatest(database);
  const db = database.db;

  const t0 = Date.now();
  const accounts: [number, number][] = [[MAIN, MAIN_ROWS], ...Array.from({ length: 10 }, (_, k): [number, number] => [MAIN + 1 + k, OTHER_ROWS])];
  for (const [account, rows] of accounts) {
    const batch: Insertable<ReceivablesTable>[] = [];
    await db.transaction().execute(async (trx) => {
      for (const row of sales(account, rows)) {
        batch.push(row);
        if (batch.length === BATCH) await trx.insertInto('receivables').values(batch.splice(0)).execute();
      }
      if (batch.length > 0) await trx.insertInto('receivables').values(batch.splice(0)).execute();
    });
  }
  if (engine === 'postgres') await sql`analyze receivables`.execute(db);
  else await sql`analyze`.execute(db);
  console.log(`${engine}: loaded ${MAIN_ROWS + 10 * OTHER_ROWS} rows in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  const ctx = { database, config: { conciliation: { maxRangeDays: 31, maxConcurrentPerMerchant: 1000, pageRows: Number(process.env.CONCIL_PAGE_ROWS ?? 2000) } } } as AppContext;
  const p = { accountNumber: MAIN, merchantId: `mer_${MAIN}` } as Principal;
  const range = { accountNumber: String(MAIN), startDate: '2026-06-01', endDate: '2026-07-01' };
  const probe = await db.selectFrom('receivables').select(['nsu', 'cod_auth', 'transaction_at']).where('account_number', '=', MAIN).where('transaction_at', '>=', '2026-06-15').orderBy('transaction_at').limit(1).executeTakeFirstOrThrow();
  /** A streamed range answer read to the end, as the response would be: records and bytes. */
  const drain = async (chunks: AsyncIterable<string[]>) => {
    let records = 0;
    for await (const batch of chunks) {
      records += batch.length;
      bytes += batch.join(',').length;
    }
    return records;
  };
  let bytes = 0;
  const point = async (rows: Promise<unknown[]>) => JSON.stringify(await rows).length && (await rows).length;
  const cases: [string, () => Promise<number>][] = [
    ['search-by-code', () => point(conciliationSearch.byCode(ctx, p, { accountNumber: String(MAIN), nsu: probe.nsu, codAuth: probe.cod_auth }))],
    ['search-by-auth-code', () => point(conciliationSearch.byAuthCode(ctx, p, { accountNumber: String(MAIN), codAuth: probe.cod_auth, operationDate: probe.transaction_at.slice(0, 10) }))],
    ['search-by-operation-date', () => drain(conciliationSearch.byOperationDate(ctx, p, range))],
    ['search-by-operation-date-installments', () => drain(conciliationSearch.byOperationDateInstallments(ctx, p, range))],
    ['search-by-payment-date', () => drain(conciliationSearch.byPaymentDate(ctx, p, range))],
  ];
  console.log('| search | records | p50 | p95 | records/s (p50) |');
  for (const [name, run] of cases) {
    let count = 0;
    for (let i = 0; i < 3; i++) await run();
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const s = performance.now();
      count = await run();
      times.push(performance.now() - s);
    }
    times.sort((a, b) => a - b);
    console.log(`| ${name} | ${count} | ${times[9].toFixed(1)} ms | ${times[18].toFixed(1)} ms | ${Math.round(count / (times[9] / 1000)).toLocaleString('en')} |`);
  }

  if (schema) await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db);
  await database.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
