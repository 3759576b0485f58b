import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brl } from '../../src/domain/format-br.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { advanceTo, pay, search, settlementMerchant } from '../settlement/support.js';
import { DashboardClient } from './support.js';

/** The rows of a table of the page (by id): each row's cells' text. */
function tableRows(body: string, id: string): string[][] {
  const table = new RegExp(`<table id="${id}">([\\s\\S]*?)</table>`).exec(body);
  if (!table) return [];
  const tbody = /<tbody>([\s\S]*?)<\/tbody>/.exec(table[1])![1];
  return [...tbody.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) => [...r[1].matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) => c[1].trim()));
}
const kpi = (body: string, id: string) => new RegExp(`id="${id}"><span>[^<]*</span><strong>([^<]*)</strong>`).exec(body)?.[1];
const ddmmyyyy = (iso: string) => iso.slice(0, 10).split('-').reverse().join('/');
/** A 10,4 JSON decimal in cents (half up), as the page rounds for display. */
const cents = (v: number) => BigInt(Math.round(v * 10000)) >= 0n ? (BigInt(Math.round(v * 10000)) + 50n) / 100n : 0n;

describe(`dashboard home charts (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
    // Mid-day in Brasília, so that the payments of "today" do not straddle a day.
    await advanceTo(t, new Date(Date.UTC(new Date().getUTCFullYear() + 1, 2, 10, 15, 0, 0)).toISOString());
  });
  afterAll(() => t?.close());

  it('KPIs and chart tables equal the sums of the payments made through the API; declines by return code; another merchant is not counted', async () => {
    const m = await settlementMerchant(t);
    const other = await settlementMerchant(t);
    await pay(t, other, { amount: 999_999, installments: 1 });
    // Yesterday (business time): one approved sale.
    const yesterday = await pay(t, m, { amount: 5_000, installments: 1, reference: 'y-1' });
    await advanceTo(t, new Date(new Date(yesterday.createdAt).getTime() + 86_400_000).toISOString());
    const approved = [
      await pay(t, m, { amount: 12_345, installments: 1, reference: 'a-1' }),
      await pay(t, m, { amount: 20_000, installments: 3, reference: 'a-2' }),
      await pay(t, m, { amount: 7_77, installments: 2, reference: 'a-3' }),
    ];
    const denied = [
      await pay(t, m, { amount: 1_000, installments: 1, card: '4000000000000002', reference: 'd-1' }),
      await pay(t, m, { amount: 2_000, installments: 1, card: '4000000000009995', reference: 'd-2' }),
      await pay(t, m, { amount: 3_000, installments: 1, card: '4000000000009995', reference: 'd-3' }),
    ];
    expect(approved.map((p) => p.status)).toEqual(['Authorized', 'Authorized', 'Authorized']);
    expect(denied.map((p) => p.returnCode)).toEqual(['05', '51', '51']);
    const todaySum = approved.reduce((s, p) => s + BigInt(p.amount), 0n);

    const c = new DashboardClient(t);
    await c.loginMerchant(m);
    const home = await c.get('/dashboard');
    expect(home.statusCode).toBe(200);
    expect(kpi(home.body, 'kpi-today')).toBe(brl(todaySum));
    expect(kpi(home.body, 'kpi-month')).toBe(brl(todaySum + 5_000n));
    // 4 approved (00) of 7 decided.
    expect(kpi(home.body, 'kpi-rate')).toBe('57,1 %');

    const sales = tableRows(home.body, 'table-sales');
    expect(sales).toHaveLength(30);
    const today = ddmmyyyy(new Date(new Date(approved[0].createdAt).getTime() - 3 * 3600_000).toISOString());
    const before = ddmmyyyy(new Date(new Date(yesterday.createdAt).getTime() - 3 * 3600_000).toISOString());
    expect(sales[29]).toEqual([today, brl(todaySum)]);
    expect(sales[28]).toEqual([before, brl(5_000n)]);
    expect(sales.slice(0, 28).every((r) => r[1] === brl(0n))).toBe(true);
    expect(tableRows(home.body, 'table-rate')[29]).toEqual([today, '3', '6', '50,0 %']);
    expect(tableRows(home.body, 'table-declines')).toEqual([['51', '2'], ['05', '1']]);
    // The chart carries the same numbers (cents) as its table.
    expect(home.body).toContain('data-chart="');
    expect(home.body).toContain(`&quot;data&quot;:[${[...Array(28).fill(0), 5000, Number(todaySum)].join(',')}]`);

    // Receivables expected: the installments' received values, per expected date, as the conciliation API gives them.
    const start = today.split('/').reverse().join('-');
    const records = (await search(t, m.integration, 'search-by-payment-date', { accountNumber: m.accountNumber, startDate: start, endDate: new Date(Date.parse(start) + 60 * 86_400_000).toISOString().slice(0, 10) })).json() as { receivedDateForeast: string; receivedValue: number; installmentStatus: string }[];
    const perDay = new Map<string, { n: number; v: number }>();
    for (const r of records.filter((r) => r.installmentStatus === 'A')) {
      const d = ddmmyyyy(r.receivedDateForeast);
      const e = perDay.get(d) ?? { n: 0, v: 0 };
      perDay.set(d, { n: e.n + 1, v: Math.round((e.v + r.receivedValue) * 10000) / 10000 });
    }
    const expected = tableRows(home.body, 'table-receivables');
    expect(expected.map((r) => r[0])).toEqual([...perDay.keys()].sort((a, b) => a.split('/').reverse().join().localeCompare(b.split('/').reverse().join())));
    for (const [d, e] of perDay) expect(expected.find((r) => r[0] === d)!.slice(1)).toEqual([String(e.n), brl(cents(e.v))]);

    // Prepayment available: what the prepayment API then anticipates for {all: true}.
    const shown = kpi(home.body, 'kpi-prepayment');
    const prepaid = await t.inject({ method: 'POST', url: `/integration/api/prepayments?accountNumber=${m.accountNumber}`, headers: m.integration, payload: { all: true } });
    expect(prepaid.statusCode, prepaid.body).toBe(200);
    expect(prepaid.json().count).toBeGreaterThan(0);
    // The quote prices each date's total net; prepay rounds each installment's cost (half a ten-thousandth each at most): within a cent here.
    const shownCents = BigInt(shown!.replace(/[^0-9]/g, ''));
    const paidCents = cents(prepaid.json().totalReceivedValue);
    expect(shownCents >= paidCents - 1n && shownCents <= paidCents + 1n, `${shown} vs ${paidCents}`).toBe(true);
    expect(home.body).toContain(`${prepaid.json().count} parcelas`);
    const after = await c.get('/dashboard');
    expect(kpi(after.body, 'kpi-prepayment')).toBe(brl(0n));
  });

  it('a cancelled payment leaves the sales; an operator is sent to its own home; no session goes to the login', async () => {
    const m = await settlementMerchant(t);
    const p1 = await pay(t, m, { amount: 10_000, installments: 1 });
    await pay(t, m, { amount: 2_500, installments: 1 });
    const cancel = await t.inject({ method: 'POST', url: `/gateway/v1/payments/${p1.paymentId}/cancel`, headers: m.headers });
    expect(cancel.statusCode).toBe(200);
    const c = new DashboardClient(t);
    await c.loginMerchant(m);
    const home = await c.get('/dashboard');
    expect(kpi(home.body, 'kpi-today')).toBe(brl(2_500n));
    expect(kpi(home.body, 'kpi-rate')).toBe('100,0 %');
    const op = new DashboardClient(t);
    await op.loginOperator();
    expect((await op.get('/dashboard')).headers.location).toBe('/dashboard/operator/merchants');
    expect((await new DashboardClient(t).get('/dashboard')).statusCode).toBe(303);
  });
});
