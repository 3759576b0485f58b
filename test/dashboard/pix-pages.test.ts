import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { pixCharge, textOf } from './merchant-pages-support.js';
import { DashboardClient } from './support.js';

describe(`dashboard: Pix charges (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let c: DashboardClient;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    c = new DashboardClient(t);
    await c.loginMerchant(m);
  });
  afterAll(() => t?.close());

  it('lists the charges newest first, pages by keyset, and shows a paid one as paid', async () => {
    const old = await pixCharge(t, m, 1990, 'Camiseta');
    for (let i = 0; i < 50; i++) await pixCharge(t, m, 100 + i, `Item ${i}`);
    const newest = await pixCharge(t, m, 4590, 'Tênis');
    const first = await c.get('/dashboard/pix');
    expect(first.statusCode).toBe(200);
    const next = /href="([^"]+after=[^"]+)" rel="next"/.exec(first.body)![1].replace(/&amp;/g, '&');
    const second = await c.get(next);
    const ids = (body: string) => [...body.matchAll(/href="\/dashboard\/pix\/([0-9a-f-]{36})"/g)].map((x) => x[1]);
    expect(ids(first.body)).toHaveLength(50);
    expect(ids(second.body)).toHaveLength(2);
    expect(new Set([...ids(first.body), ...ids(second.body)]).size).toBe(52);
    // Newest first: the last one made is on the first page, the first one made on the second.
    expect(ids(first.body)).toContain(newest.id);
    expect(ids(second.body)).toContain(old.id);
    expect(textOf(first.body)).toContain('R$ 45,90');
    const paid = await t.inject({ method: 'POST', url: `/sandbox/pix/${old.id}/pay`, headers: t.adminHeaders });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(textOf((await c.get(`/dashboard/pix/${old.id}`)).body)).toContain('Paga');
  });

  it('the detail page shows the status and the copy-and-paste code with a copy button', async () => {
    const charge = await pixCharge(t, m, 2500, 'Boné');
    const page = await c.get(`/dashboard/pix/${charge.id}`);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('Pendente');
    expect(page.body).toContain(`data-copy="${charge.pixEmv}"`);
  });

  it("another merchant's charge is 404 and absent from its list", async () => {
    const charge = await pixCharge(t, m, 999, 'Meia');
    const other = await t.merchant();
    const oc = new DashboardClient(t);
    await oc.loginMerchant(other);
    expect((await oc.get(`/dashboard/pix/${charge.id}`)).statusCode).toBe(404);
    expect((await oc.get('/dashboard/pix')).body).not.toContain(charge.id);
  });
});
