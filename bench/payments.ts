/**
 * POST /v1/payments under load (PERFORMANCE.md "payments"): 32 connections, 1 installment,
 * card source spread over 1,000 cards (vault, or encryptedCard with RSA-OAEP), 15 s after a 3 s
 * warm-up, against a fresh server in a child process; ceilings measured in the same run.
 *
 *   npx tsx bench/payments.ts [sqlite|postgres] [vault|encrypted] [seconds]
 *   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres (a fresh database is created and dropped)
 *
 * The merchant's anti-fraud velocity limits are raised for this traffic (every card pays ~70
 * times in 18 s): the velocity counts still run on every payment, they just do not fire.
 * autocannon shares the 2-core machine with the server.
 */
import { constants, publicEncrypt } from 'node:crypto';
import { benchDatabase, ceilings, cpf, json, line, load, startServer, visaNumber } from './support.js';

const engine = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const source = (process.argv[3] ?? 'vault') as 'vault' | 'encrypted';
const duration = Number(process.argv[4] ?? 15);
const CARDS = 1000;
const CONNECTIONS = 32;

async function main() {
  const ceiling = await ceilings(CONNECTIONS, 5);

  const { url: databaseUrl, cleanup } = await benchDatabase(engine);

  const server = await startServer({ DATABASE_URL: databaseUrl, GATEWAY_MODE: 'sandbox' }, 18950);
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
      const number = visaNumber(1_000_000 + i);
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
    let next = 0;
    const figures = await load({
      url: `${server.url}/gateway/v1/payments`,
      connections: CONNECTIONS,
      duration,
      requests: [{ method: 'POST', headers, setupRequest: (req: any) => ({ ...req, body: bodies[next++ % bodies.length] }) }],
    });
    const authorized = await countAuthorized(databaseUrl);

    console.log(`payments benchmark: ${engine}, ${source} card source over ${CARDS} cards, ${CONNECTIONS} connections, ${duration} s after 3 s warm-up`);
    console.log('(autocannon shares this 2-core machine with the server)');
    console.log(line('ceiling: bare node:http echo', ceiling.bare));
    console.log(line('ceiling: Fastify JSON echo', ceiling.fastify));
    console.log(line('POST /v1/payments', figures));
    console.log(`  ratio to Fastify echo: ${(figures.rps / ceiling.fastify.rps).toFixed(3)}; Authorized rows in the database: ${authorized}`);
  } finally {
    await server.stop();
    await cleanup();
  }
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
