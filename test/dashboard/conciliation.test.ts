import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decimalText } from '../../src/modules/dashboard/pages/conciliation/csv.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { pay, search, settlementMerchant } from '../settlement/support.js';
import { DashboardClient } from './support.js';

/** The CSV as rows of cells (no quoted separators in these records). */
function parseCsv(text: string): string[][] {
  expect(text.startsWith('\ufeff')).toBe(true);
  return text.slice(1).split('\r\n').filter(Boolean).map((line) => line.split(';'));
}

/** A record of the API's JSON answer as the CSV writes each cell. */
const INTEGERS = new Set(['installmentNumber', 'installmentsCount', 'installments']);
function cells(record: Record<string, unknown>, columns: string[]): string[] {
  return columns.map((c) => {
    const v = record[c];
    if (v === null || v === undefined) return '';
    if (typeof v === 'number') return INTEGERS.has(c) ? String(v) : decimalText(v);
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}

describe(`dashboard conciliation export (${testDialect})`, () => {
  let t: TestApp;
  let m: Awaited<ReturnType<typeof settlementMerchant>>;
  let c: DashboardClient;
  let today: string;
  beforeAll(async () => {
    t = await testApp({ env: { CONCIL_MAX_RANGE_DAYS: '31' } });
    m = await settlementMerchant(t);
    const other = await settlementMerchant(t);
    await pay(t, other, { amount: 55_555, installments: 2 });
    for (const [amount, installments] of [[10_000, 1], [33_333, 3], [1_001, 2], [99_999, 12]]) await pay(t, m, { amount, installments, reference: `c-${amount}` });
    today = t.ctx.clock.now().toISOString().slice(0, 10);
    c = new DashboardClient(t);
    await c.loginMerchant(m);
  });
  afterAll(() => t?.close());

  it('the page has the form; each kind downloads the records the API answers for the same range, as CSV', async () => {
    const page = await c.get('/dashboard/conciliation');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('action="/dashboard/conciliation/export"');
    expect(page.body).toContain('31 dias');
    for (const [kind, api, start, stop] of [
      ['operation-date', 'search-by-operation-date', today, today],
      ['operation-date-installments', 'search-by-operation-date-installments', today, today],
      ['payment-date', 'search-by-payment-date', new Date(Date.parse(today) + 20 * 86_400_000).toISOString().slice(0, 10), new Date(Date.parse(today) + 50 * 86_400_000).toISOString().slice(0, 10)],
    ] as const) {
      const res = await c.get(`/dashboard/conciliation/export?startDate=${start}&endDate=${stop}&kind=${kind}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="conciliacao-${kind}-${start}-${stop}.csv"`);
      const rows = parseCsv(res.body);
      const json = (await search(t, m.integration, api, { accountNumber: m.accountNumber, startDate: start, endDate: stop })).json() as Record<string, unknown>[];
      expect(json.length).toBeGreaterThan(0);
      const columns = rows[0];
      expect(columns).toEqual(Object.keys(json[0]).filter((k) => k !== 'splits').concat(columns.includes('splits') ? ['splits'] : []));
      expect(rows.slice(1)).toEqual(json.map((r) => cells(r, columns)));
    }
    // The amounts: exact, at least 2 decimals (R$ 333,33 of 3 x 333,33).
    const summary = parseCsv((await c.get(`/dashboard/conciliation/export?startDate=${today}&endDate=${today}&kind=operation-date`)).body);
    const amount = summary[0].indexOf('amount');
    expect(summary.slice(1).map((r) => r[amount]).sort()).toEqual(['10.01', '100.00', '333.33', '999.99']);
    expect(summary.slice(1).every((r) => !r.join(';').includes('555.55'))).toBe(true);
  });

  it('a range beyond CONCIL_MAX_RANGE_DAYS, reversed or missing dates: the form again with the reason, 400', async () => {
    const long = await c.get(`/dashboard/conciliation/export?startDate=2026-01-01&endDate=2026-03-01&kind=payment-date`);
    expect(long.statusCode).toBe(400);
    expect(long.headers['content-type']).toContain('text/html');
    expect(long.body).toContain('no máximo 31 dias');
    expect(long.body).toContain('id="c-start"');
    for (const q of ['startDate=2026-02-01&endDate=2026-01-01', 'startDate=&endDate=', 'startDate=2026-02-30&endDate=2026-03-01']) {
      const res = await c.get(`/dashboard/conciliation/export?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.body).toContain('role="alert"');
    }
  });

  it('decimals are written from the exact value', () => {
    expect([150, 150.5, 0.3333, 0, 12.34, -1.5].map(decimalText)).toEqual(['150.00', '150.50', '0.3333', '0.00', '12.34', '-1.50']);
  });
});
