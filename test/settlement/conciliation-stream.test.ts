import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Type } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/domain/calendar.js';
import { installmentRecord, summaryRecord, type ReceivableRow } from '../../src/modules/settlement/conciliation-json.js';
import { InstallmentRecord, SummaryRecord } from '../../src/modules/settlement/schemas.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { rangeState } from '../../src/modules/settlement/search.js';
import { dataSet } from './receivable-rows.js';
import { CONCIL, search, settlementMerchant } from './support.js';

/**
 * The range searches' streamed answers against a reference answer built whole: every row read
 * with `selectAll`, mapped with installmentRecord / summaryRecord and serialized by Fastify with
 * fast-json-stringify compiled from the route's response schema. `oldAnswer` below is that path,
 * so the streamed bytes are compared with an independent implementation, not with a copy of the
 * streaming code.
 */
const ROWS = 5_200;
/** Small pages, so every answer crosses many keyset boundaries (ties included). */
const PAGE_ROWS = 97;
const oldSerializers = {
  installments: fastJson(Type.Array(InstallmentRecord)),
  summary: fastJson(Type.Array(SummaryRecord)),
};

async function oldAnswer(t: TestApp, name: string, account: number, start: string, end: string): Promise<string> {
  const db = t.ctx.database.db;
  const from = `${start}T00:00:00.000Z`;
  const to = `${addDays(end, 1)}T00:00:00.000Z`;
  let rows: ReceivableRow[];
  if (name === 'search-by-payment-date') {
    rows = await db.selectFrom('receivables').selectAll().where('account_number', '=', account).where('receipt_date', '>=', start).where('receipt_date', '<=', end)
      .orderBy('transaction_at').orderBy('installment_number').orderBy('id').execute();
  } else {
    let q = db.selectFrom('receivables').selectAll().where('account_number', '=', account).where('transaction_at', '>=', from).where('transaction_at', '<', to);
    if (name === 'search-by-operation-date') q = q.where('installment_number', '=', 1);
    rows = await q.orderBy('transaction_at').orderBy('installment_number').orderBy('id').execute();
  }
  return name === 'search-by-operation-date' ? oldSerializers.summary(rows.map(summaryRecord)) : oldSerializers.installments(rows.map(installmentRecord));
}

describe(`streamed range searches (${testDialect})`, () => {
  let t: TestApp;
  let m: Awaited<ReturnType<typeof settlementMerchant>>;
  const ranges: [string, string, string][] = [
    ['search-by-operation-date', '2027-03-01', '2027-03-31'],
    ['search-by-operation-date-installments', '2027-03-01', '2027-03-31'],
    ['search-by-operation-date-installments', '2027-03-01', '2027-03-01'],
    ['search-by-payment-date', '2027-03-20', '2027-04-19'],
    ['search-by-payment-date', '2027-05-01', '2027-05-31'],
  ];
  beforeAll(async () => {
    // A shorter range limit than the contract's default 90 days, as an operator may set it.
    t = await testApp({ env: { CONCIL_PAGE_ROWS: String(PAGE_ROWS), CONCIL_MAX_RANGE_DAYS: '31' } });
    m = await settlementMerchant(t);
    const rows = dataSet(Number(m.accountNumber), m.merchantId, ROWS);
    for (let i = 0; i < rows.length; i += 200) await t.ctx.database.db.insertInto('receivables').values(rows.slice(i, i + 200)).execute();
  });
  afterAll(() => t.close());

  for (const [name, start, end] of ranges) {
    it(`${name} ${start}..${end}: byte for byte the previous answer`, async () => {
      const expected = await oldAnswer(t, name, Number(m.accountNumber), start, end);
      // The data set must exercise several pages, or the keyset would go untested.
      expect(JSON.parse(expected).length).toBeGreaterThan(5 * PAGE_ROWS);
      const res = await search(t, m.integration, name, { accountNumber: m.accountNumber, startDate: start, endDate: end });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['x-request-id']).toBeTruthy();
      expect(res.body.length).toBe(expected.length);
      expect(res.body === expected).toBe(true);
    });
  }
  it('an empty range answers []', async () => {
    const res = await search(t, m.integration, 'search-by-payment-date', { accountNumber: m.accountNumber, startDate: '2026-01-01', endDate: '2026-01-31' });
    expect(res.body).toBe('[]');
  });

  it('paging: page + limit answer slices of the same order; limit above 10,000 is a 400', async () => {
    const q = { accountNumber: m.accountNumber, startDate: '2027-03-01', endDate: '2027-03-31' };
    const whole = JSON.parse(await oldAnswer(t, 'search-by-operation-date-installments', Number(m.accountNumber), q.startDate, q.endDate));
    const p1 = await search(t, m.integration, 'search-by-operation-date-installments', { ...q, page: 1, limit: 1000 });
    const p3 = await search(t, m.integration, 'search-by-operation-date-installments', { ...q, page: 3, limit: 1000 });
    expect(p1.json()).toEqual(whole.slice(0, 1000));
    expect(p3.json()).toEqual(whole.slice(2000, 3000));
    expect(p3.body).toBe(JSON.stringify(whole.slice(2000, 3000)));
    const beyond = await search(t, m.integration, 'search-by-operation-date-installments', { ...q, page: 1000, limit: 1000 });
    expect(beyond.body).toBe('[]');
    const tooBig = await search(t, m.integration, 'search-by-operation-date-installments', { ...q, limit: 10_001 });
    expect(tooBig.statusCode).toBe(400);
    expect(tooBig.json()[0].tag).toBe('query.limit');
  });

  it('range limit: more than CONCIL_MAX_RANGE_DAYS days is a 400 on query.endDate', async () => {
    const res = await search(t, m.integration, 'search-by-payment-date', { accountNumber: m.accountNumber, startDate: '2027-03-01', endDate: '2027-04-02' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([{ tag: 'query.endDate', description: expect.stringContaining('at most 31 days') }]);
  });

  it('slow clients hold their slots (429 with Retry-After: 1 beyond CONCIL_MAX_CONCURRENT_PER_MERCHANT); a client that goes away stops the reads and frees its slot', async () => {
    // A large answer (~40 MB) for another merchant, far more than the loopback socket buffers hold.
    const big = await settlementMerchant(t);
    const rows = dataSet(Number(big.accountNumber), big.merchantId, 40_000);
    for (let i = 0; i < rows.length; i += 500) await t.ctx.database.db.insertInto('receivables').values(rows.slice(i, i + 500)).execute();
    const total = rows.filter((r) => r.transaction_at < '2027-04-01').length;
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(address);
    const state = rangeState(t.ctx);
    const before = state.reads.rows;
    const q = { accountNumber: String(big.accountNumber), startDate: '2027-03-01', endDate: '2027-03-31' };
    const qs = new URLSearchParams(q);
    // Two clients read one chunk each, then stop reading (backpressure holds their searches).
    const open = async () => {
      const r = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: `${CONCIL}/search-by-operation-date-installments?${qs}`, headers: big.integration });
      r.on('error', () => undefined);
      const res = await new Promise<import('node:http').IncomingMessage>((resolve) => r.once('response', resolve).end());
      expect(res.statusCode).toBe(200);
      await new Promise((resolve) => res.once('data', resolve));
      res.pause();
      return r;
    };
    const clients = [await open(), await open()];
    await new Promise((r) => setTimeout(r, 300));
    expect(t.ctx.streamSlots.running.get(big.merchantId)).toBe(2);
    const refused = await search(t, big.integration, 'search-by-operation-date-installments', q);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['x-request-id']).toBeTruthy();
    expect(refused.json()).toEqual([{ tag: 'too_many_searches', description: expect.any(String) }]);
    // Another merchant is not affected.
    expect((await search(t, m.integration, 'search-by-operation-date', { accountNumber: m.accountNumber, startDate: '2027-03-01', endDate: '2027-03-02' })).statusCode).toBe(200);

    for (const c of clients) c.destroy();
    await new Promise((r) => setTimeout(r, 300));
    const read = state.reads.rows - before;
    expect(read).toBeGreaterThan(0);
    // Both clients together read far less than one whole answer: the reads stopped.
    expect(read).toBeLessThan(total);
    expect(t.ctx.streamSlots.running.size).toBe(0);
    const settled = state.reads.rows;
    await new Promise((r) => setTimeout(r, 200));
    expect(state.reads.rows).toBe(settled);
    expect((await search(t, big.integration, 'search-by-operation-date-installments', { ...q, endDate: '2027-03-01' })).statusCode).toBe(200);
  });
});
