import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, toIsoDate } from '../../src/domain/calendar.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { bankSlip, fullMerchant, textOf, type FullMerchant } from './merchant-pages-support.js';
import { DashboardClient } from './support.js';

describe(`dashboard: bank slips (${testDialect})`, () => {
  let t: TestApp;
  let m: FullMerchant;
  let c: DashboardClient;
  let today: string;
  beforeAll(async () => {
    t = await testApp();
    m = await fullMerchant(t);
    c = new DashboardClient(t);
    await c.loginMerchant(m);
    today = toIsoDate(t.ctx.clock.now());
  });
  afterAll(() => t?.close());

  it('lists slips by due date in the default window and by a chosen range; by payment date only the paid ones', async () => {
    const soon = await bankSlip(t, m, addDays(today, 10), 'Ana Souza');
    const later = await bankSlip(t, m, addDays(today, 80), 'Bruno Lima');
    const res = await c.get('/dashboard/bankslips');
    expect(res.statusCode).toBe(200);
    expect(textOf(res.body)).toContain('Ana Souza');
    expect(res.body).toContain(`href="/dashboard/bankslips/${soon}"`);
    expect(res.body).not.toContain(later); // 80 days ahead is outside the default window (-30..+60)
    const ranged = await c.get(`/dashboard/bankslips?by=due&startDate=${addDays(today, 70)}&endDate=${addDays(today, 90)}`);
    expect(ranged.body).toContain(later);
    expect(ranged.body).not.toContain(soon);
    // Paid in the sandbox: the payment-date listing shows it, not the other one.
    const paid = await t.inject({ method: 'POST', url: `/sandbox/bankslips/${soon}/pay`, headers: t.adminHeaders, payload: {} });
    expect(paid.statusCode, paid.body).toBe(200);
    const byPayment = await c.get(`/dashboard/bankslips?by=payment&startDate=${addDays(today, -1)}&endDate=${addDays(today, 1)}`);
    expect(byPayment.body).toContain(soon);
    expect(byPayment.body).not.toContain(later);
    expect(textOf(byPayment.body)).toContain('Pago');
    const byCredit = await c.get(`/dashboard/bankslips?by=credit&startDate=${addDays(today, -1)}&endDate=${addDays(today, 10)}`);
    expect(byCredit.statusCode).toBe(200);
  });

  it('a reversed or too wide range re-shows the form with the message (400); a bad date is 400', async () => {
    const reversed = await c.get(`/dashboard/bankslips?startDate=${addDays(today, 5)}&endDate=${today}`);
    expect(reversed.statusCode).toBe(400);
    expect(reversed.body).toContain('endDate must not be before startDate.');
    expect(reversed.body).toContain('id="startDate"');
    const wide = await c.get(`/dashboard/bankslips?startDate=${today}&endDate=${addDays(today, 200)}`);
    expect(wide.statusCode).toBe(400);
    expect((await c.get('/dashboard/bankslips?startDate=31/12/2026')).statusCode).toBe(400);
  });

  it('pages by keyset through a long window', async () => {
    const mm = await fullMerchant(t);
    for (let i = 0; i < 52; i++) await bankSlip(t, mm, addDays(today, 20), `Pagador ${i}`);
    const cc = new DashboardClient(t);
    await cc.loginMerchant(mm);
    const first = await cc.get('/dashboard/bankslips');
    const ids = (body: string) => [...body.matchAll(/href="\/dashboard\/bankslips\/([0-9a-f-]{36})"/g)].map((x) => x[1]);
    expect(ids(first.body)).toHaveLength(50);
    const next = /href="([^"]+after=[^"]+)" rel="next"/.exec(first.body)![1].replace(/&amp;/g, '&');
    const second = await cc.get(next);
    expect(ids(second.body)).toHaveLength(2);
    expect(new Set([...ids(first.body), ...ids(second.body)]).size).toBe(52);
  });

  it('the detail page shows the slip and links its PDF, served for the session merchant only', async () => {
    const id = await bankSlip(t, m, addDays(today, 15), 'Carla Dias');
    const page = await c.get(`/dashboard/bankslips/${id}`);
    expect(page.statusCode).toBe(200);
    const info = (await t.inject({ method: 'GET', url: `/integration/api/billissuer/information?accountNumber=${m.accountNumber}&id_bill=${id}`, headers: m.integration })).json();
    expect(textOf(page.body)).toContain(info.digitableLine);
    expect(textOf(page.body)).toContain('R$ 150,75');
    expect(page.body).toContain(`href="/dashboard/bankslips/${id}/pdf"`);
    const pdf = await c.get(`/dashboard/bankslips/${id}/pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');

    const other = await fullMerchant(t);
    const oc = new DashboardClient(t);
    await oc.loginMerchant(other);
    expect((await oc.get(`/dashboard/bankslips/${id}`)).statusCode).toBe(404);
    expect((await oc.get(`/dashboard/bankslips/${id}/pdf`)).statusCode).toBe(404);
    expect((await oc.get('/dashboard/bankslips')).body).not.toContain(id);
  });

  it('cancels a slip from its page: the CSRF token is required; the reason shows; a second cancel is the API\'s 409 on the page; not another merchant\'s', async () => {
    const id = await bankSlip(t, m, addDays(today, 15), 'Davi Rocha');
    await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes: 0 } });
    const info = async () => (await t.inject({ method: 'GET', url: `/integration/api/billissuer/information?accountNumber=${m.accountNumber}&id_bill=${id}`, headers: m.integration })).json();
    const page = await c.get(`/dashboard/bankslips/${id}`);
    expect(page.body).toContain(`action="/dashboard/bankslips/${id}/cancel"`);

    const forged = await c.post(`/dashboard/bankslips/${id}/cancel`, { reason: 'x' }, { csrf: null });
    expect(forged.statusCode).toBe(403);
    expect((await info()).CancelDate).toBeNull();

    const other = await fullMerchant(t);
    const oc = new DashboardClient(t);
    await oc.loginMerchant(other);
    await oc.get('/dashboard/bankslips');
    expect((await oc.post(`/dashboard/bankslips/${id}/cancel`, {})).statusCode).toBe(404);
    expect((await info()).CancelDate).toBeNull();

    const long = await c.post(`/dashboard/bankslips/${id}/cancel`, { reason: 'x'.repeat(201) });
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain('reason must have at most 200 characters.');

    const done = await c.post(`/dashboard/bankslips/${id}/cancel`, { reason: 'Pedido desistido' });
    expect(done.statusCode, done.body).toBe(303);
    expect(done.headers.location).toBe(`/dashboard/bankslips/${id}?done=canceled`);
    expect(await info()).toMatchObject({ statusBill: 2, CancellationReason: 'Pedido desistido' });
    const after = await c.get(done.headers.location as string);
    expect(after.body).toContain('Boleto cancelado.');
    expect(textOf(after.body)).toContain('Pedido desistido');
    expect(after.body).not.toContain(`action="/dashboard/bankslips/${id}/cancel"`);
    expect(after.body).not.toContain(`href="/dashboard/bankslips/${id}/pdf"`);

    const again = await c.post(`/dashboard/bankslips/${id}/cancel`, {});
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('already cancelled');
  });
});
