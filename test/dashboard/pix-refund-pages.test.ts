import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { textOf } from './merchant-pages-support.js';
import { DashboardClient } from './support.js';

const CHARGES = '/gateway/v1/pix/charges';

describe(`dashboard: Pix refunds and MED claims on the charge page (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let c: DashboardClient;
  const charge = async (amount: number, description = 'Pedido') => {
    const res = await t.inject({ method: 'POST', url: CHARGES, headers: m.headers, payload: { amount, description } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string };
  };
  const paidCharge = async (amount: number, description?: string) => {
    const made = await charge(amount, description);
    const paid = await t.inject({ method: 'POST', url: `/sandbox/pix/${made.id}/pay`, headers: t.adminHeaders });
    expect(paid.statusCode, paid.body).toBe(200);
    return made;
  };
  const apiCharge = async (id: string) => (await t.inject({ method: 'GET', url: `${CHARGES}/${id}`, headers: m.headers })).json();
  const apiRefunds = async (id: string) => (await t.inject({ method: 'GET', url: `${CHARGES}/${id}/refunds`, headers: m.headers })).json().items;
  const refundForm = (id: string) => `action="/dashboard/pix/${id}/refunds"`;

  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    c = new DashboardClient(t);
    await c.loginMerchant(m);
  });
  afterAll(() => t?.close());

  it('a charge with a due date shows its terms, and paid with its fine and interest, what was paid is what is left to refund', async () => {
    const today = t.ctx.clock.now().toISOString().slice(0, 10);
    const due = new Date(Date.parse(today) + 5 * 864e5).toISOString().slice(0, 10);
    const made = await t.inject({ method: 'POST', url: CHARGES, headers: m.headers, payload: { amount: 10_000, dueDate: due, validAfterDueDays: 30, payer: { documentNumber: '52998224725', name: 'Maria' }, fine: 2, interest: 1 } });
    expect(made.statusCode, made.body).toBe(201);
    const { id, txid } = made.json();
    await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { days: 20 } });
    const paid = await t.inject({ method: 'POST', url: `/sandbox/pix/cobv/${txid}/pay`, headers: t.adminHeaders });
    expect(paid.statusCode, paid.body).toBe(200);
    const left = (paid.json().amount / 100).toFixed(2).replace('.', ',');
    const page = await c.get(`/dashboard/pix/${id}`);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain(`${due.split('-').reverse().join('/')} (+30)`);
    expect(textOf(page.body)).toContain('multa 2% · juros ao mês 1%');
    expect(page.body).toMatch(new RegExp(`id="paid-amount">R\\$\\s${left}`));
    expect(textOf(page.body)).toContain(`o que resta, R$ ${left}`);
  });

  it('a refund made on the page is the API\'s: listed by GET refunds, the refunded amount on both', async () => {
    const p = await paidCharge(10_000);
    const page = await c.get(`/dashboard/pix/${p.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(refundForm(p.id));
    expect(textOf(page.body)).toContain('Nenhuma devolução desta cobrança.');
    expect(textOf(page.body)).toContain('o que resta, R$ 100,00');

    // Without the CSRF token nothing is returned.
    expect((await c.post(`/dashboard/pix/${p.id}/refunds`, { amount: '30' }, { csrf: null })).statusCode).toBe(403);
    expect(await apiRefunds(p.id)).toEqual([]);

    const part = await c.post(`/dashboard/pix/${p.id}/refunds`, { amount: '30,50', reason: 'Troca de tamanho' });
    expect(part.statusCode, part.body).toBe(303);
    expect(part.headers.location).toBe(`/dashboard/pix/${p.id}?done=refundReturned`);
    const listed = await apiRefunds(p.id);
    expect(listed).toEqual([expect.objectContaining({ amount: 3_050, status: 'Returned', nature: 'ORIGINAL', reason: 'Troca de tamanho', statusReason: null })]);
    expect((await apiCharge(p.id)).refundedAmount).toBe(3_050);

    const after = await c.get(part.headers.location as string);
    expect(after.body).toContain('Devolução feita.');
    expect(after.body).toMatch(/id="refunded-amount">R\$\s30,50/);
    const table = textOf(/<table id="pix-refunds">[\s\S]*?<\/table>/.exec(after.body)![0]);
    expect(table).toContain(listed[0].refundId);
    expect(table).toContain('Devolvido');
    expect(table).toContain('Devolução do lojista');
    expect(table).toContain('Troca de tamanho');

    // Blank: what is left, as the API's optional amount; then no form.
    const rest = await c.post(`/dashboard/pix/${p.id}/refunds`, { amount: '', reason: '' });
    expect(rest.statusCode, rest.body).toBe(303);
    expect((await apiRefunds(p.id)).map((r: { amount: number; reason: string | null }) => [r.amount, r.reason])).toEqual([[3_050, 'Troca de tamanho'], [6_950, null]]);
    expect((await apiCharge(p.id)).refundedAmount).toBe(10_000);
    expect((await c.get(`/dashboard/pix/${p.id}`)).body).not.toContain(refundForm(p.id));
  });

  it("an over-refund, a charge not Paid, a mistyped amount and an over-long reason show the refusal on the page; nothing is sent", async () => {
    const p = await paidCharge(5_000);
    await c.get(`/dashboard/pix/${p.id}`);
    const over = await c.post(`/dashboard/pix/${p.id}/refunds`, { amount: '50,01' });
    expect(over.statusCode).toBe(400);
    expect(over.body).toContain('role="alert"');
    // The service's own message, as the API gives it.
    const api = await t.inject({ method: 'POST', url: `${CHARGES}/${p.id}/refunds`, headers: m.headers, payload: { amount: 5_001 } });
    expect(api.statusCode).toBe(400);
    expect(over.body).toContain(`<li>amount: ${api.json()[0].description}</li>`);
    expect(over.body).toContain(refundForm(p.id));

    const typo = await c.post(`/dashboard/pix/${p.id}/refunds`, { amount: 'cinquenta' });
    expect(typo.statusCode).toBe(400);
    expect(typo.body).toContain('amount: amount deve ser em reais');
    const long = await c.post(`/dashboard/pix/${p.id}/refunds`, { amount: '1', reason: 'x'.repeat(141) });
    expect(long.statusCode).toBe(400);
    expect(long.body).toMatch(/<li>reason: [^<]+<\/li>/);
    expect(await apiRefunds(p.id)).toEqual([]);
    expect((await apiCharge(p.id)).refundedAmount).toBe(0);

    const pending = await charge(2_000);
    const page = await c.get(`/dashboard/pix/${pending.id}`);
    expect(page.body).not.toContain(refundForm(pending.id));
    const notPaid = await c.post(`/dashboard/pix/${pending.id}/refunds`, { amount: '10' });
    expect(notPaid.statusCode).toBe(409);
    expect(notPaid.body).toContain('<li>status: A Pix charge in status Pending cannot be refunded; only a Paid one can.</li>');
    expect(await apiRefunds(pending.id)).toEqual([]);
  });

  it('an open MED claim: the held amount, a link to its dispute page with its status, and only the rest refundable', async () => {
    const p = await paidCharge(10_000);
    const claim = await t.inject({ method: 'POST', url: `/sandbox/pix/${p.id}/infraction`, headers: t.adminHeaders, payload: { amount: 6_000 } });
    expect(claim.statusCode, claim.body).toBe(201);
    const disputeId = claim.json().disputeId as string;

    const page = await c.get(`/dashboard/pix/${p.id}`);
    expect(page.body).toMatch(/id="med-held">R\$\s60,00/);
    const claims = /<table id="med-claims">[\s\S]*?<\/table>/.exec(page.body)![0];
    expect(claims).toContain(`href="/dashboard/disputes/${disputeId}"`);
    expect(textOf(claims)).toContain('Aguardando resposta');
    expect(textOf(page.body)).toContain('o que resta, R$ 40,00');
    // The dispute's page and the disputes list link back to the charge.
    expect((await c.get(`/dashboard/disputes/${disputeId}`)).body).toContain(`href="/dashboard/pix/${p.id}"`);
    expect((await c.get('/dashboard/disputes')).body).toContain(`href="/dashboard/pix/${p.id}"`);

    await c.get(`/dashboard/pix/${p.id}`);
    const over = await c.post(`/dashboard/pix/${p.id}/refunds`, { amount: '40,01' });
    expect(over.statusCode).toBe(400);
    expect(over.body).toMatch(/<li>amount: [^<]+<\/li>/);
    expect(await apiRefunds(p.id)).toEqual([]);

    // Won: the hold is lifted; the claim stays listed, with its new status.
    expect((await t.inject({ method: 'POST', url: `/admin/disputes/${disputeId}/resolve`, headers: t.adminHeaders, payload: { outcome: 'won' } })).statusCode).toBe(200);
    const won = await c.get(`/dashboard/pix/${p.id}`);
    expect(won.body).not.toContain('id="med-held"');
    expect(textOf(/<table id="med-claims">[\s\S]*?<\/table>/.exec(won.body)![0])).toContain('Ganha');
    expect(textOf(won.body)).toContain('o que resta, R$ 100,00');
  });

  it('a charge without a claim has no claims table', async () => {
    const p = await paidCharge(1_000);
    const page = await c.get(`/dashboard/pix/${p.id}`);
    expect(page.body).not.toContain('id="med-claims"');
    expect(page.body).not.toContain('id="med-held"');
  });

  it('escapes what it prints: the description and the refund reason', async () => {
    const p = await paidCharge(3_000, '<script>alert(1)</script>');
    await c.get(`/dashboard/pix/${p.id}`);
    expect((await c.post(`/dashboard/pix/${p.id}/refunds`, { amount: '1', reason: '<img src=x onerror=alert(2)>' })).statusCode).toBe(303);
    const page = await c.get(`/dashboard/pix/${p.id}`);
    expect(page.body).not.toContain('<script>alert(1)</script>');
    expect(page.body).not.toContain('<img src=x');
    expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.body).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect((await c.get('/dashboard/pix')).body).not.toContain('<script>alert(1)</script>');
  });

  it("needs the payments scope, as the API's refund does; another merchant's charge is 404; nothing is refunded", async () => {
    const p = await paidCharge(2_000);
    const limited = await t.merchant({ scopes: ['integration'] });
    const lc = new DashboardClient(t);
    await lc.loginMerchant(limited);
    expect((await lc.get(`/dashboard/pix/${p.id}`)).statusCode).toBe(403);
    await lc.get('/dashboard');
    const refused = await lc.post(`/dashboard/pix/${p.id}/refunds`, { amount: '' });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('lacks the &quot;payments&quot; scope');

    const other = await t.merchant();
    const oc = new DashboardClient(t);
    await oc.loginMerchant(other);
    expect((await oc.get(`/dashboard/pix/${p.id}`)).statusCode).toBe(404);
    await oc.get('/dashboard');
    expect((await oc.post(`/dashboard/pix/${p.id}/refunds`, { amount: '' })).statusCode).toBe(404);
    expect(await apiRefunds(p.id)).toEqual([]);
  });
});
