/**
 * POST /v1/payments under load (PERFORMANCE.md "payments"): 32 connections, 1 installment,
 * card source spread over 1,000 cards (vault, or encryptedCard with RSA-OAEP), 15 s after a 3 s
 * warm-up, against a fresh server in a child process; ceilings measured in the same run.
 *
 *   npx tsx bench/payments.ts [sqlite|postgres] [vault|encrypted] [seconds] [sandbox|cielo]
 *   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres (a fresh database is created and dropped)
 *   BENCH_PORT: the server's port (18950), for two runs side by side
 *
 * `cielo` charges through the Cielo connector against the stand-in (test/standins/cielo.ts, a
 * process of its own) answering every call in 50 ms: the ceiling is then connections / 50 ms,
 * and the connector's cost is the p50 above the stand-in's latency.
 *
 * The merchant's anti-fraud velocity limits are raised for this traffic (every card pays ~70
 * times in 18 s): the velocity counts still run on every payment, they just do not fire.
 * autocannon shares the 2-core machine with the server.
 */
import { constants, publicEncrypt } from 'node:crypto';
import pg from 'pg';
import { STANDIN_MERCHANT_ID, STANDIN_MERCHANT_KEY } from '../test/standins/cielo.js';
import { benchDatabase, ceilings, cpf, cpuMs, json, line, load, startServer, startStandIn, visaNumber, visaNumberEndingIn } from './support.js';

const engine = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const source = (process.argv[3] ?? 'vault') as 'vault' | 'encrypted';
const duration = Number(process.argv[4] ?? 15);
const acquirer = (process.argv[5] ?? 'sandbox') as 'sandbox' | 'cielo';
const CIELO_LATENCY_MS = 50;
const CARDS = 1000;
// BENCH_CONNECTIONS: fewer for latency figures (bench/db-latency-proxy.ts); the scenario is 32.
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

async function main() {
  const ceiling = await ceilings(CONNECTIONS, 5);

  const { url: databaseUrl, cleanup } = await benchDatabase(engine);

  const standin = acquirer === 'cielo' ? await startStandIn(CIELO_LATENCY_MS) : undefined;
  const acquirerEnv: Record<string, string> = standin
    ? { ACQUIRER: 'cielo', CIELO_API_URL: standin.apiUrl, CIELO_QUERY_URL: standin.queryUrl, CIELO_MERCHANT_ID: STANDIN_MERCHANT_ID, CIELO_MERCHANT_KEY: STANDIN_MERCHANT_KEY, CIELO_ENVIRONMENT: 'sandbox' }
    : {};
  const server = await startServer({ DATABASE_URL: databaseUrl, GATEWAY_MODE: 'sandbox', ...acquirerEnv }, Number(process.env.BENCH_PORT ?? 18950));
  try {
    const admin = { authorization: `Bearer ${server.adminKey}`, 'content-type': 'application/json' };
    const merchant = await json(await fetch(`${server.url}/admin/merchants`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'Bench Store', documentNumber: '11222333000181' }) }));
    const credential = await json(await fetch(`${server.url}/admin/merchants/${merchant.merchantId}/credentials`, { method: 'POST', headers: admin, body: JSON.stringify({ scopes: ['payments'] }) }));
    await json(await fetch(`${server.url}/admin/merchants/${merchant.merchantId}/antifraud`, { method: 'PUT', headers: admin, body: JSON.stringify({ velocity: { maxPerCard: 1_000_000, maxPerDocument: 1_000_000, maxPerIp: 1_000_000 } }) }));
    const { accessToken } = await json(await fetch(`${server.url}/gateway/api/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userName: credential.userName, password: credential.password }) }));
    const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };

    const { publicKey } = await json(await fetch(`${server.url}/gateway/cards/public-key`));
    const cardInfos: object[] = [];
    for (let i = 0; i < CARDS; i++) {
      // Cielo's sandbox (and so the stand-in) decides by the last digit: every card ends in 0, 1 or 4 (approved).
      const number = acquirer === 'cielo' ? visaNumberEndingIn(1_000_000 + i, '014') : visaNumber(1_000_000 + i);
      if (source === 'vault') {
        const v = await json(await fetch(`${server.url}/gateway/v1/vaults/cards`, { method: 'POST', headers, body: JSON.stringify({ cardNumber: number, expirationMonth: '12', expirationYear: '2035', cardholderName: 'BENCH BUYER' }) }));
        cardInfos.push({ vaultId: v.vaultId, cardholderName: 'BENCH BUYER' });
      } else {
        const encryptedCard = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, Buffer.from(JSON.stringify({ number, expirationMonth: '12', expirationYear: '2035', securityCode: '123' }))).toString('base64');
        cardInfos.push({ encryptedCard, cardholderName: 'BENCH BUYER' });
      }
    }
    const bodies = cardInfos.map((cardInfo, i) =>
      JSON.stringify({
        payment: { transactionType: 'credit', amount: 1000 + i, productType: 'avista', installments: 1 },
        sellerInfo: { codeAntiFraud: '3fa85f64-5717-4562-b3fc-2c963f66afa6' },
        cardInfo,
        customer: { documentType: 'cpf', documentNumber: cpf(i), email: `buyer${i}@example.com`, ipAddress: `198.51.${i % 250}.${(i * 7) % 250}`, country: 'BR' },
        referenceTransaction: `bench-${i}`,
      }),
    );
    console.log(`payments benchmark: ${engine}, ${source} card source over ${CARDS} cards, ${CONNECTIONS} connections, ${duration} s after 3 s warm-up, acquirer ${acquirer}`);
    let next = 0;
    const before = { statements: await statementsSent(server.url), commits: await commitsOf(engine, databaseUrl), payments: await countPayments(databaseUrl) };
    let cpuBefore = 0;
    const figures = await load({
      url: `${server.url}/gateway/v1/payments`,
      connections: CONNECTIONS,
      duration,
      requests: [{ method: 'POST', headers, setupRequest: (req: any) => ({ ...req, body: bodies[next++ % bodies.length] }) }],
    }, 3, async () => {
      if (engine === 'postgres') await analyze(databaseUrl);
      cpuBefore = cpuMs(server.pid);
    });
    const serverCpuMs = cpuMs(server.pid) - cpuBefore;
    const authorized = await countAuthorized(databaseUrl);
    // What trails the sales (the relay) is done within a second; pg_stat_database is flushed within one too.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const made = (await countPayments(databaseUrl)) - before.payments;
    const statements = ((await statementsSent(server.url)) - before.statements) / made;
    const commits = engine === 'postgres' ? ((await commitsOf(engine, databaseUrl))! - before.commits!) / made : undefined;

    console.log(`(autocannon shares this 2-core machine with the server${standin ? ' and the Cielo stand-in' : ''})`);
    if (engine === 'postgres') console.log('(ANALYZE after the warm-up: the first autovacuum analyze a deployment gets within its first minute)');
    if (standin) console.log(`ceiling: ${CONNECTIONS} connections / ${CIELO_LATENCY_MS} ms stand-in latency = ${((CONNECTIONS * 1000) / CIELO_LATENCY_MS).toFixed(0)}/s; p50 target <= ${CIELO_LATENCY_MS + 10} ms`);
    console.log(line('ceiling: bare node:http echo', ceiling.bare));
    console.log(line('ceiling: Fastify JSON echo', ceiling.fastify));
    console.log(line('POST /v1/payments', figures));
    console.log(`  ratio to Fastify echo: ${(figures.rps / ceiling.fastify.rps).toFixed(3)}; Authorized rows in the database: ${authorized}; server CPU ${((serverCpuMs * 1000) / figures.total).toFixed(0)} µs a payment`);
    console.log(
      `  per payment, everything the server sent (the path, the relay's batches, the worker's polls): ${statements.toFixed(2)} statements` +
        (commits === undefined ? '' : `, ${commits.toFixed(2)} transactions (pg_stat_database's xact_commit: an autocommit read is one too)`) +
        `; the path alone is held to 6 and 2 by test/payments/statement-budget.test.ts`,
    );
  } finally {
    await server.stop();
    standin?.stop();
    await cleanup();
  }
}


/**
 * PostgreSQL: gives the fresh database's tables the statistics autovacuum would take in a
 * deployment's first minute (its naptime), which this 18-second run never reaches.
 */
async function analyze(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('analyze');
  await client.end();
}

/** gateway_db_statements_total summed over its verbs, from the server's /metrics. */
async function statementsSent(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return [...text.matchAll(/^gateway_db_statements_total\{[^}]*\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** PostgreSQL: the transactions committed in the bench's own database so far. */
async function commitsOf(engine: string, databaseUrl: string): Promise<number | undefined> {
  if (engine !== 'postgres') return undefined;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows } = await client.query('select xact_commit from pg_stat_database where datname = current_database()');
  await client.end();
  return Number(rows[0].xact_commit);
}

async function countPayments(databaseUrl: string): Promise<number> {
  const { openDatabase } = await import('../src/db/connection.js');
  const database = await openDatabase(databaseUrl);
  const row = await database.db.selectFrom('payments').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  await database.close();
  return Number(row.n);
}

async function countAuthorized(databaseUrl: string): Promise<number> {
  const { openDatabase } = await import('../src/db/connection.js');
  const database = await openDatabase(databaseUrl);
  const row = await database.db.selectFrom('payments').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'Authorized').executeTakeFirstOrThrow();
  await database.close();
  return Number(row.n);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
