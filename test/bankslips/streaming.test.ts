import { connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Executor } from '../../src/db/connection.js';
import { CREDIT_FIELDS, LIST_FIELDS, sqlJsonObject } from '../../src/modules/bankslips/record-fields.js';
import { bankSlipsRepository, type DateColumn } from '../../src/modules/bankslips/repository.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { FIXTURE_END, FIXTURE_START, fixtureRows, insertRows } from './fixture-rows.js';
import { BASE } from './support.js';
import { CONCIL } from '../settlement/support.js';
import type { BankSlipStatus } from '../../src/domain/lifecycles.js';

/**
 * The listings as one query, not streamed: the rows' JSON joined whole. Kept here
 * verbatim as the reference the streamed answers must equal byte for byte.
 */
async function legacyListJson(
  db: Executor,
  jsonObject: string,
  accountNumber: number,
  column: DateColumn,
  start: string,
  end: string,
  filter: { statusBill?: BankSlipStatus; statusIntegration?: number } = {},
): Promise<string> {
  let query = db
    .selectFrom('bankslips')
    .select(sql<string>`${sql.raw(jsonObject)}`.as('json'))
    .where('account_number', '=', accountNumber)
    .where(column, '>=', start)
    .where(column, '<=', end);
  if (filter.statusBill !== undefined) query = query.where('status_bill', '=', filter.statusBill);
  if (filter.statusIntegration !== undefined) query = query.where('status_integration', '=', filter.statusIntegration);
  const rows = await query.orderBy(column).orderBy('seq').execute();
  return `[${rows.map((r) => r.json).join(',')}]`;
}

// A collector on demand, so that heap figures count what is retained, not garbage awaiting collection.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

type By = 'due-date' | 'payment-date' | 'credit-date';

/**
 * The reference answer of a listing, built whole by the database. PostgreSQL's json_build_object
 * writes `"key" : value` with spaces, while the listings are made in JavaScript from columns
 * (list-columns.ts) and written compact, the bytes SQLite answers: there the reference is parsed
 * and written again without the spaces (the values, keys, order and number texts unchanged).
 */
async function legacy(t: TestApp, m: TestMerchant, by: By, start: string, end: string, statusIntegration?: number): Promise<string> {
  const dialect = t.ctx.database.dialect;
  const db = t.ctx.database.db;
  let text: string;
  if (by === 'due-date') text = await legacyListJson(db, sqlJsonObject(LIST_FIELDS, dialect), m.accountNumber, 'due_date', start, end);
  else if (by === 'payment-date') text = await legacyListJson(db, sqlJsonObject(LIST_FIELDS, dialect), m.accountNumber, 'payment_date', start, end, { statusBill: 3 });
  else text = await legacyListJson(db, sqlJsonObject(CREDIT_FIELDS, dialect), m.accountNumber, 'credit_date', start, end, { statusIntegration });
  return dialect === 'postgres' ? JSON.stringify(JSON.parse(text)) : text;
}

/** Counts the listing's page reads, through whichever read this database uses (rows as JSON, or columns as arrays on PostgreSQL). */
const spyPages = (t: TestApp) =>
  vi.spyOn(bankSlipsRepository, t.ctx.database.dialect === 'postgres' ? 'listColumnsPage' : 'listJsonPage');

const url = (m: TestMerchant, by: By, start: string, end: string, statusIntegration?: number) =>
  `${BASE}/list/by/${by}?accountNumber=${m.accountNumber}&startDate=${start}&endDate=${end}${statusIntegration === undefined ? '' : `&statusIntegration=${statusIntegration}`}`;

describe(`bank slip listings, streamed (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let big: TestMerchant;
  let port: number;
  const BIG = 40_000;

  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant({ api: 'integration' });
    big = await t.merchant({ api: 'integration' });
    await insertRows(t.ctx.database.db, fixtureRows(m.accountNumber, m.merchantId, 300, 'fx'));
    await insertRows(t.ctx.database.db, fixtureRows(big.accountNumber, big.merchantId, BIG, 'big'));
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  }, 60_000);
  afterAll(() => t.close());

  const cases: [By, string, string, number?][] = [
    ['due-date', FIXTURE_START, FIXTURE_END],
    ['due-date', '2030-01-08', '2030-01-15'],
    ['due-date', '2030-01-05', '2030-01-06'], // empty
    ['payment-date', FIXTURE_START, FIXTURE_END],
    ['payment-date', '2030-01-10', '2030-01-10'],
    ['credit-date', FIXTURE_START, FIXTURE_END],
    ['credit-date', `2030-01-03T10:00:00-03:00`, '2030-01-20T00:00:00Z'],
    ['credit-date', FIXTURE_START, FIXTURE_END, 99],
    ['credit-date', FIXTURE_START, FIXTURE_END, 9], // empty
  ];

  it('answers byte for byte what the single-query listing answered, whatever the page size', async () => {
    const pageSize = t.ctx.bankSlips.listPageSize;
    try {
      // 7 ends pages in the middle of a date (ties broken by seq); 300 exactly at the end (one more, empty page).
      for (const size of [7, 300, 2_000]) {
        t.ctx.bankSlips.listPageSize = size;
        for (const [by, start, end, status] of cases) {
          const res = await t.inject({ method: 'GET', url: url(m, by, start, end, status), headers: { ...m.headers, 'x-request-id': 'identity-check' } });
          expect(res.statusCode, res.body).toBe(200);
          expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
          expect(res.headers['x-request-id']).toBe('identity-check');
          const expected = await legacy(t, m, by, start.slice(0, 10), end.slice(0, 10), status);
          expect(res.rawPayload.equals(Buffer.from(expected)), `${by} ${start} ${end} ${status} page ${size}`).toBe(true);
        }
      }
    } finally {
      t.ctx.bankSlips.listPageSize = pageSize;
    }
    // The fixture is not trivial: most windows hold many slips.
    expect(JSON.parse(await legacy(t, m, 'due-date', FIXTURE_START, FIXTURE_END))).toHaveLength(300);
  });

  /** A raw HTTP/1.1 GET whose answer is left unread until the test reads it. */
  function rawGet(path: string, headers: Record<string, string>): Socket {
    const socket = connect(port, '127.0.0.1');
    const lines = [`GET ${path} HTTP/1.1`, 'host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''];
    socket.write(lines.join('\r\n'));
    socket.pause();
    // A socket paused before it connects never starts reading; read(0) starts it (into its own
    // small buffer only: no 'data' listener, so the kernel's buffers fill and the server waits).
    socket.once('connect', () => socket.read(0));
    return socket;
  }

  it('a client reading at ~1 KB/s does not grow the server memory, while the answer is tens of MB', async () => {
    // Warm the code path up (compiled statements, JIT) so that the baseline is a steady process.
    expect((await t.inject({ method: 'GET', url: url(big, 'due-date', FIXTURE_START, '2030-01-01'), headers: big.headers })).statusCode).toBe(200);
    const pages = spyPages(t);
    gc();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    let retainedHeap = 0;
    const socket = rawGet(url(big, 'due-date', FIXTURE_START, FIXTURE_END), { authorization: `Bearer ${big.token}`, 'x-request-id': 'slow-reader' });
    let received = '';
    let pagesRead: number;
    try {
      const start = Date.now();
      while (Date.now() - start < 3_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const chunk = socket.read(100) as Buffer | null;
        if (chunk) received += chunk.toString('latin1');
        const now = process.memoryUsage();
        peakRss = Math.max(peakRss, now.rss);
      }
      pagesRead = pages.mock.calls.length;
      // What the server holds for this answer while its client is still reading it.
      gc();
      const held = process.memoryUsage();
      // external: the Buffers a page becomes on its way to the socket.
      retainedHeap = held.heapUsed + held.external - (before.heapUsed + before.external);
    } finally {
      socket.destroy();
      pages.mockRestore();
    }
    if (process.env.STREAM_TEST_VERBOSE) console.log({ pagesRead, rss: (peakRss - before.rss) / 1e6, heap: retainedHeap / 1e6, received: received.length });

    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received.toLowerCase()).toContain('content-type: application/json; charset=utf-8');
    expect(received.toLowerCase()).toContain('x-request-id: slow-reader');
    expect(received.toLowerCase()).toContain('transfer-encoding: chunked');
    expect(received.length).toBeLessThan(4_000);
    const totalPages = Math.ceil(BIG / t.ctx.bankSlips.listPageSize);
    // Only what the socket buffers hold was read; the rest waits for the client.
    expect(pagesRead).toBeLessThan(totalPages / 2);
    // The whole answer is ~23 MB of JSON (the last test reads it); built whole, it was held
    // several times over (rows, the joined text, its Buffer). Streamed: about two pages.
    expect(peakRss - before.rss, `rss grew ${((peakRss - before.rss) / 1e6).toFixed(1)} MB`).toBeLessThan(25e6);
    expect(retainedHeap, `heap retained ${(retainedHeap / 1e6).toFixed(1)} MB`).toBeLessThan(10e6);
  }, 15_000);

  it('stops reading pages when the client disconnects mid-answer', async () => {
    const pages = spyPages(t);
    try {
      const socket = rawGet(url(big, 'due-date', FIXTURE_START, FIXTURE_END), { authorization: `Bearer ${big.token}` });
      let head: Buffer | null = null;
      for (let waited = 0; head === null && waited < 5_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        head = socket.read(64) as Buffer | null;
      }
      socket.destroy();
      expect(head?.toString('latin1')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const afterDisconnect = pages.mock.calls.length;
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(pages.mock.calls.length).toBe(afterDisconnect);
      expect(afterDisconnect).toBeLessThan(Math.ceil(BIG / t.ctx.bankSlips.listPageSize) / 2);
    } finally {
      pages.mockRestore();
    }
    // The server is still well: the next request is answered.
    expect((await t.inject({ method: 'GET', url: url(big, 'due-date', FIXTURE_START, '2030-01-01'), headers: big.headers })).statusCode).toBe(200);
  });

  it("listings held open by slow clients take the merchant's slots: beyond CONCIL_MAX_CONCURRENT_PER_MERCHANT a listing or a range search is 429", async () => {
    const max = t.ctx.config.conciliation.maxConcurrentPerMerchant;
    const running = () => t.ctx.streamSlots.running.get(big.merchantId) ?? 0;
    const sockets = Array.from({ length: max }, () => rawGet(url(big, 'due-date', FIXTURE_START, FIXTURE_END), { authorization: `Bearer ${big.token}` }));
    try {
      for (let waited = 0; running() < max && waited < 5_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(running()).toBe(max);
      const listing = await t.inject({ method: 'GET', url: url(big, 'payment-date', FIXTURE_START, FIXTURE_END), headers: big.headers });
      expect(listing.statusCode).toBe(429);
      expect(listing.headers['retry-after']).toBe('1');
      expect(listing.json()).toEqual([{ tag: 'too_many_searches', description: expect.stringContaining(`At most ${max}`) }]);
      // The range searches share the pool.
      const range = new URLSearchParams({ accountNumber: String(big.accountNumber), startDate: '2030-01-01', endDate: '2030-01-02' });
      const search = await t.inject({ method: 'POST', url: `${CONCIL}/search-by-operation-date?${range}`, headers: big.headers });
      expect(search.statusCode).toBe(429);
      // Another merchant is not affected.
      expect((await t.inject({ method: 'GET', url: url(m, 'due-date', FIXTURE_START, FIXTURE_END), headers: m.headers })).statusCode).toBe(200);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
    for (let waited = 0; running() > 0 && waited < 5_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(t.ctx.streamSlots.running.size).toBe(0);
    expect((await t.inject({ method: 'GET', url: url(big, 'payment-date', FIXTURE_START, FIXTURE_END), headers: big.headers })).statusCode).toBe(200);
  });

  it('the large listing, read whole over many pages, is byte for byte the single-query answer', async () => {
    const res = await fetch(`http://127.0.0.1:${port}${url(big, 'due-date', FIXTURE_START, FIXTURE_END)}`, { headers: big.headers });
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    const expected = Buffer.from(await legacy(t, big, 'due-date', FIXTURE_START, FIXTURE_END));
    expect(body.length).toBeGreaterThan(20e6);
    expect(body.equals(expected)).toBe(true);
  }, 15_000);
});
