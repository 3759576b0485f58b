/**
 * Dashboard pages with 1,000,000 payments in the account: the real server in a child
 * process (ROLE=all, sandbox); 1,000,000 card payments of one merchant over the last year, bulk
 * inserted (not HTTP: 85 % approved, 10 % denied over six return codes, the rest Blocked, Canceled
 * or Paid), with the receivables of the last 60 days' payments, and 400,000 webhook notifications; then every dashboard page, logged
 * in through the login form like a browser, 20 times after 3 warm-ups, one request at a time on a
 * kept-alive connection, timed to the last byte. Target: < 200 ms server time per page.
 *
 *   npx tsx bench/dashboard.ts [sqlite|postgres]
 */
import { randomInt, randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql, type Insertable } from 'kysely';
import { openDatabase } from '../src/db/connection.js';
import type { PaymentsTable, ReceivablesTable } from '../src/db/schema.js';
import { DEFAULT_PRICING } from '../src/domain/fees.js';
import { buildReceivables } from '../src/modules/settlement/receivables.js';
import { benchDatabase, json, startServer } from './support.js';

const engine = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const DAY = 86_400_000;
const BATCH = 400;
const DECLINES = ['05', '51', '57', '14', '54', '91'];
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(url: string, options: { method?: string; cookie?: string; form?: Record<string, string> } = {}): Promise<Answer> {
  const body = options.form ? new URLSearchParams(options.form).toString() : undefined;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: options.method ?? 'GET',
        agent,
        headers: {
          ...(options.cookie ? { cookie: options.cookie } : {}),
          ...(body ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const cookiesOf = (a: Answer) => [a.headers['set-cookie'] ?? []].flat().map((c) => c.split(';')[0]);

function* payments(merchantId: string, account: number, now: number): Generator<Insertable<PaymentsTable>> {
  for (let i = 0; i < ROWS; i++) {
    // Spread evenly over the last 365 days, newest last.
    const at = new Date(now - 365 * DAY + Math.floor((i / ROWS) * 365 * DAY) + randomInt(60_000)).toISOString();
    const roll = i % 100;
    const status = roll < 85 ? 'Authorized' : roll < 95 ? 'Denied' : roll < 97 ? 'Blocked' : roll < 99 ? 'Canceled' : 'Paid';
    const returnCode = status === 'Denied' ? DECLINES[i % DECLINES.length] : '00';
    const last4 = String(1000 + (i % 1000)).padStart(4, '0');
    yield {
      payment_id: randomUUID(), merchant_id: merchantId, account_number: account, status, amount: 1000 + (i % 50_000),
      installments: (i % 3) + 1, product_type: 'credit', transaction_type: 'sale', brand: 'Visa', masked_card_number: `411111******${last4}`,
      card_fingerprint: `fp-${i % 1000}`, card_source: 'card', vault_id: null, cardholder_name: 'MARIA SILVA', reference_transaction: `order-${i}`,
      url_callback: null, code_anti_fraud: 'none', customer: JSON.stringify({ name: 'Maria Silva' }), customer_document: null, customer_email: null, customer_ip: null,
      antifraud_decision: status === 'Blocked' ? 'Review' : 'Accept', antifraud_score: i % 100, antifraud_reasons: '[]',
      return_code: returnCode, return_message: status === 'Denied' ? 'Declined' : 'Approved', authorization_code: status === 'Denied' ? null : String(100000 + (i % 900000)),
      nsu: String(i).padStart(12, '0'), acquirer_reference: null, splits: '[]', billing_id: null, created_at: at, updated_at: at, acquirer_sent_at: at,
    };
  }
}

async function main() {
  const { url, cleanup } = await benchDatabase(engine, 'dash');
  const port = 20_000 + randomInt(20_000);
  const server = await startServer({ DATABASE_URL: url, GATEWAY_MODE: 'sandbox' }, port);
  const database = await openDatabase(url);
  const db = database.db;
  try {
    const admin = { authorization: `Bearer ${server.adminKey}`, 'content-type': 'application/json' };
    const merchant = await json(await fetch(`${server.url}/admin/merchants`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'Bench Store', documentNumber: '11222333000181' }) }));
    const credential = await json(await fetch(`${server.url}/admin/merchants/${merchant.merchantId}/credentials`, { method: 'POST', headers: admin, body: JSON.stringify({ scopes: ['payments', 'recurrence', 'integration'] }) }));
    const account = Number(merchant.accountNumber);

    const t0 = Date.now();
    const now = Date.now();
    let sample = '';
    await db.transaction().execute(async (trx) => {
      let batch: Insertable<PaymentsTable>[] = [];
      let receivables: Insertable<ReceivablesTable>[] = [];
      for (const p of payments(merchant.merchantId, account, now)) {
        batch.push(p);
        if (p.reference_transaction === `order-${ROWS - 500}`) sample = p.payment_id;
        // The receivables of the last 60 days' approved sales: the home's "expected per day" chart reads them.
        if (p.status === 'Authorized' && Date.parse(p.created_at) > now - 60 * DAY) {
          receivables.push(...buildReceivables({
            sourceType: 'card', sourceId: p.payment_id, merchantId: p.merchant_id, accountNumber: account, transactionAt: p.created_at,
            cardNumber: p.masked_card_number, cardName: 'VISA', codAuth: p.authorization_code ?? '', nsu: p.nsu ?? '', reference: p.reference_transaction ?? null,
            amountCents: BigInt(p.amount), installments: p.installments, splits: [], status: 'A',
          }, DEFAULT_PRICING));
        }
        if (batch.length === BATCH) await trx.insertInto('payments').values(batch.splice(0)).execute();
        if (receivables.length >= BATCH) await trx.insertInto('receivables').values(receivables.splice(0)).execute();
      }
      if (batch.length) await trx.insertInto('payments').values(batch).execute();
      if (receivables.length) await trx.insertInto('receivables').values(receivables).execute();
      batch = [];
      receivables = [];
    });
    // 400,000 webhook notifications (one in a thousand a pix_charge.paid, one in seven Delivered): the delivery log's filters.
    const N = 400_000;
    if (engine === 'postgres') {
      await sql`insert into webhook_notifications (merchant_id, account_number, channel, type, payload, url, status, attempts, next_attempt_at, deadline_at, created_at, updated_at)
        select ${merchant.merchantId}, ${account}, 'webhook', case when g % 1000 = 0 then 'pix_charge.paid' else 'TransactionStatus' end, '{"type":"x"}', null,
        case when g % 7 = 0 then 'Delivered' else 'Exhausted' end, 1, null, '2027-01-01T00:00:00.000Z',
        to_char(timestamp '2026-01-01' + (g || ' seconds')::interval, 'YYYY-MM-DD"T"HH24:MI:SS".000Z"'), '2026-01-01T00:00:00.000Z' from generate_series(1, ${N}) g`.execute(db);
    } else {
      await sql`with recursive g(n) as (select 1 union all select n + 1 from g where n < ${N})
        insert into webhook_notifications (merchant_id, account_number, channel, type, payload, url, status, attempts, next_attempt_at, deadline_at, created_at, updated_at)
        select ${merchant.merchantId}, ${account}, 'webhook', case when n % 1000 = 0 then 'pix_charge.paid' else 'TransactionStatus' end, '{"type":"x"}', null,
        case when n % 7 = 0 then 'Delivered' else 'Exhausted' end, 1, null, '2027-01-01T00:00:00.000Z',
        strftime('%Y-%m-%dT%H:%M:%S.000Z', '2026-01-01', '+' || n || ' seconds'), '2026-01-01T00:00:00.000Z' from g`.execute(db);
    }
    // PostgreSQL: VACUUM as autovacuum would after such a load, so index-only scans skip the
    // heap (the visibility map is empty after a bulk insert); SQLite: statistics only.
    if (engine === 'postgres') await sql`vacuum analyze`.execute(db);
    else await sql`analyze`.execute(db);
    console.log(`${engine}: ${ROWS.toLocaleString('en')} payments loaded in ${((Date.now() - t0) / 1000).toFixed(1)} s; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

    // Log in like a browser: the form's CSRF cookie and field, then the session cookie.
    const base = server.url;
    const merchantCookie = await login(`${base}/dashboard/login`, { userName: credential.userName, password: credential.password });
    const operatorCookie = await login(`${base}/dashboard/login/operator`, { adminKey: server.adminKey });

    const list = await call(`${base}/dashboard/payments`, { cookie: merchantCookie });
    const next = /href="(\/dashboard\/payments\?[^"]*after=[^"]+)"/.exec(list.body)?.[1]?.replace(/&amp;/g, '&');
    const pages: [string, string, string][] = [
      ['merchant', 'home (charts over 30 days, 60 days of receivables)', '/dashboard'],
      ['merchant', 'payments, first page', '/dashboard/payments'],
      ['merchant', 'payments, next page (keyset)', next ?? '/dashboard/payments'],
      ['merchant', 'payments by status Denied', '/dashboard/payments?status=Denied'],
      ['merchant', 'payments by reference', `/dashboard/payments?reference=order-${ROWS - 500}`],
      ['merchant', 'payments by card last four', '/dashboard/payments?lastFour=1234'],
      ['merchant', 'payment detail (timeline)', `/dashboard/payments/${sample}`],
      ['merchant', 'subscriptions', '/dashboard/subscriptions'],
      ['merchant', 'bank slips', '/dashboard/bankslips'],
      ['merchant', 'Pix charges', '/dashboard/pix'],
      ['merchant', 'payment links', '/dashboard/links'],
      ['merchant', 'webhooks: subscription and delivery log (400,000 notifications)', '/dashboard/webhooks'],
      ['merchant', 'delivery log by a rare type', '/dashboard/webhooks?type=pix_charge.paid'],
      ['merchant', 'delivery log by status', '/dashboard/webhooks?status=Delivered'],
      ['merchant', 'delivery log by an empty channel', '/dashboard/webhooks?channel=callback'],
      ['merchant', 'delivery log, two days', '/dashboard/webhooks?startDate=2026-01-02&endDate=2026-01-03'],
      ['merchant', 'conciliation export form', '/dashboard/conciliation'],
      ['operator', 'merchants', '/dashboard/operator/merchants'],
      ['operator', 'review queue (20,000 Blocked)', '/dashboard/operator/review'],
      ['operator', 'job queues', '/dashboard/operator/jobs'],
      ['operator', 'sandbox', '/dashboard/operator/sandbox'],
    ];
    console.log('| page | p50 | p95 | max | bytes |');
    console.log('|---|---|---|---|---|');
    for (const [role, name, path] of pages) {
      const cookie = role === 'operator' ? operatorCookie : merchantCookie;
      const first = await call(`${base}${path}`, { cookie });
      if (first.status !== 200) throw new Error(`${name} (${path}): ${first.status} ${first.body.slice(0, 300)}`);
      for (let i = 0; i < 2; i++) await call(`${base}${path}`, { cookie });
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const s = performance.now();
        await call(`${base}${path}`, { cookie });
        times.push(performance.now() - s);
      }
      times.sort((a, b) => a - b);
      const p = (q: number) => times[Math.min(RUNS - 1, Math.ceil(RUNS * q) - 1)].toFixed(1);
      console.log(`| ${name} | ${p(0.5)} ms | ${p(0.95)} ms | ${times[RUNS - 1].toFixed(1)} ms | ${first.body.length.toLocaleString('en')} |`);
    }
    console.log(`load average at the end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    agent.destroy();
    await database.close();
    await server.stop();
    await cleanup();
  }
}

async function login(url: string, fields: Record<string, string>): Promise<string> {
  const form = await call(url);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
  const answer = await call(url, { method: 'POST', cookie: cookiesOf(form).join('; '), form: { ...fields, _csrf: csrf } });
  if (answer.status !== 303) throw new Error(`login at ${url}: ${answer.status} ${answer.body.slice(0, 300)}`);
  return cookiesOf(answer).filter((c) => c.startsWith('gw_session=')).join('; ');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
