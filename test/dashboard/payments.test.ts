import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brl } from '../../src/domain/format-br.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { pay, settlementMerchant } from '../settlement/support.js';
import { DashboardClient } from './support.js';

/** Payment ids linked from a list page, in order. */
const idsOf = (body: string) => [...body.matchAll(/href="\/dashboard\/payments\/([0-9a-f-]{36})"/g)].map((m) => m[1]);
const nextOf = (body: string) => /<a href="([^"]+)" rel="next">/.exec(body)?.[1].replace(/&amp;/g, '&');

describe(`dashboard payments list and detail (${testDialect})`, () => {
  let t: TestApp;
  let m: Awaited<ReturnType<typeof settlementMerchant>>;
  let c: DashboardClient;
  const made: { paymentId: string; status: string; referenceTransaction: string; maskedCardNumber: string; amount: number }[] = [];
  beforeAll(async () => {
    t = await testApp();
    m = await settlementMerchant(t);
    for (let i = 0; i < 112; i++) {
      const card = i % 10 === 0 ? '4000000000000002' : i % 3 === 0 ? '5555555555554444' : '4111111111111111';
      made.push(await pay(t, m, { amount: 1_000 + i, installments: 1 + (i % 3), card, reference: `ref-${i}` }));
    }
    c = new DashboardClient(t);
    await c.loginMerchant(m);
  });
  afterAll(() => t?.close());

  it('pages of 50, newest first, across pages without a duplicate or a gap', async () => {
    const seen: string[] = [];
    let url: string | undefined = '/dashboard/payments';
    let pages = 0;
    while (url) {
      const res = await c.get(url);
      expect(res.statusCode, res.body).toBe(200);
      const ids = idsOf(res.body);
      expect(ids.length).toBeLessThanOrEqual(50);
      seen.push(...ids);
      url = nextOf(res.body);
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual([...made].reverse().map((p) => p.paymentId));
  });

  it('filters by status, reference and card last four (keeping the filters on the next page); columns as the API shows them', async () => {
    const denied = await c.get('/dashboard/payments?status=Denied');
    expect(idsOf(denied.body).sort()).toEqual(made.filter((p) => p.status === 'Denied').map((p) => p.paymentId).sort());
    expect(denied.body).toContain('Negado');

    const one = made[42];
    const byRef = await c.get(`/dashboard/payments?reference=${one.referenceTransaction}`);
    expect(idsOf(byRef.body)).toEqual([one.paymentId]);
    const row = /<tbody>([\s\S]*?)<\/tbody>/.exec(byRef.body)![1];
    expect(row).toContain(brl(BigInt(one.amount)));
    expect(row).toContain(one.maskedCardNumber);
    expect(row).toContain('mastercard');

    const master = made.filter((p) => p.maskedCardNumber.endsWith('4444')).map((p) => p.paymentId);
    const first = await c.get('/dashboard/payments?lastFour=4444&status=Authorized');
    const next = nextOf(first.body);
    expect(next).toBeUndefined();
    expect(idsOf(first.body)).toEqual([...made].reverse().filter((p) => p.maskedCardNumber.endsWith('4444') && p.status === 'Authorized').map((p) => p.paymentId));
    expect(master.length).toBeGreaterThan(30);

    const visa = await c.get('/dashboard/payments?lastFour=1111');
    const nextVisa = nextOf(visa.body)!;
    expect(nextVisa).toContain('lastFour=1111');
    const page2 = await c.get(nextVisa);
    expect([...idsOf(visa.body), ...idsOf(page2.body)]).toEqual([...made].reverse().filter((p) => p.maskedCardNumber.endsWith('1111')).map((p) => p.paymentId));

    // A date range without payments; the range is in Brasília days.
    const empty = await c.get('/dashboard/payments?from=2020-01-01&to=2020-01-31');
    expect(idsOf(empty.body)).toEqual([]);
    expect(empty.body).toContain('Nada encontrado');
  });

  it('in English on request: the same list with English labels, amounts still formatted for pt-BR', async () => {
    const en = new DashboardClient(t);
    await en.loginMerchant(m);
    en.jar.gw_lang = 'en';
    const res = await en.get(`/dashboard/payments?reference=${made[10].referenceTransaction}`);
    expect(res.body).toContain('<html lang="en">');
    expect(res.body).toContain('<h1>Payments</h1>');
    expect(res.body).toContain('>Denied<');
    expect(res.body).toContain(brl(BigInt(made[10].amount)));
    const detail = await en.get(`/dashboard/payments/${made[10].paymentId}`);
    expect(detail.body).toContain('Acquirer answer: code 05');
  });

  it('bad filters are a 400 page with the reason, never a 500', async () => {
    for (const q of ['from=2026-13-01', 'from=2026-02-01&to=2026-01-01', 'status=2', 'lastFour=12a4', 'after=garbage']) {
      const res = await c.get(`/dashboard/payments?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.body).toContain('role="alert"');
    }
  });

  it('the detail shows the facts and the timeline: anti-fraud, acquirer answer, installments, events, deliveries', async () => {
    const hook = await t.inject({ method: 'POST', url: `/integration/api/webhooks/subscriptions?accountNumber=${m.accountNumber}`, headers: m.integration, payload: { url: 'https://example.com/hook' } });
    expect(hook.statusCode, hook.body).toBeLessThan(300);
    const p = await pay(t, m, { amount: 30_000, installments: 3, reference: 'detail-1' });
    const res = await c.get(`/dashboard/payments/${p.paymentId}`);
    expect(res.statusCode).toBe(200);
    const facts = /<dl class="facts" id="facts">([\s\S]*?)<\/dl>/.exec(res.body)![1];
    expect(facts).toContain(brl(30_000n));
    expect(facts).toContain(p.maskedCardNumber);
    expect(facts).toContain('***.982.247-**');
    expect(res.body).not.toContain('52998224725');
    expect(res.body).not.toContain('4111111111111111');
    const timeline = /<ol class="timeline" id="timeline">([\s\S]*?)<\/ol>/.exec(res.body)![1];
    expect(timeline).toContain(`Antifraude: ${p.antiFraud.decision}, pontuação ${p.antiFraud.score}`);
    expect(timeline).toContain(`código 00`);
    expect(timeline).toContain(`Autorização ${p.authorizationCode}, NSU ${p.nsu}`);
    expect(timeline).toContain('Status: novo → Autorizado');
    const installments = /<table id="installments">([\s\S]*?)<\/table>/.exec(res.body)![1];
    expect(installments.match(/<tr>/g)).toHaveLength(4);
    expect(installments).toContain('R$ 100,00');
    const deliveries = /<table id="deliveries">([\s\S]*?)<\/table>/.exec(res.body)![1];
    expect(deliveries).toContain('TransactionStatus');
    expect(res.body).toContain('data-confirm=');
    expect(res.body).toContain('action="/dashboard/payments/' + p.paymentId + '/cancel"');
  });

  it("another merchant's payment, an unknown id and a malformed id are 404", async () => {
    const other = await settlementMerchant(t);
    const theirs = await pay(t, other, { amount: 4_321, installments: 1 });
    for (const id of [theirs.paymentId, '00000000-0000-4000-8000-000000000000', 'not-an-id', "x'or'1'='1", 'a'.repeat(90)]) {
      const res = await c.get(`/dashboard/payments/${encodeURIComponent(id)}`);
      expect(res.statusCode, `${id} ${res.body.slice(-600)}`).toBe(404);
      expect(res.body).not.toContain('4.321');
    }
    const cancel = await c.post(`/dashboard/payments/${theirs.paymentId}/cancel`, {});
    expect(cancel.statusCode).toBe(404);
    const api = await t.inject({ method: 'GET', url: `/gateway/v1/payments/${theirs.paymentId}`, headers: other.headers });
    expect(api.json().status).toBe('Authorized');
  });

  it('cancel without the CSRF token is refused and changes nothing; with it, the API then answers Canceled', async () => {
    const p = await pay(t, m, { amount: 8_800, installments: 2, reference: 'to-cancel' });
    await c.get(`/dashboard/payments/${p.paymentId}`);
    const forged = await c.post(`/dashboard/payments/${p.paymentId}/cancel`, {}, { csrf: null });
    expect(forged.statusCode).toBe(403);
    const wrong = await c.post(`/dashboard/payments/${p.paymentId}/cancel`, {}, { csrf: 'not-the-token' });
    expect(wrong.statusCode).toBe(403);
    let api = await t.inject({ method: 'GET', url: `/gateway/v1/payments/${p.paymentId}`, headers: m.headers });
    expect(api.json().status).toBe('Authorized');

    const done = await c.post(`/dashboard/payments/${p.paymentId}/cancel`, {});
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe(`/dashboard/payments/${p.paymentId}?done=canceled`);
    api = await t.inject({ method: 'GET', url: `/gateway/v1/payments/${p.paymentId}`, headers: m.headers });
    expect(api.json().status).toBe('Canceled');
    const page = await c.get(done.headers.location as string);
    expect(page.body).toContain('Pagamento cancelado.');
    expect(page.body).toContain('Status: Autorizado → Cancelado');
    expect(page.body).not.toContain('/cancel"');
    // The webhooks of the cancel (subscription registered above): the transaction's and its installments'.
    const deliveries = /<table id="deliveries">([\s\S]*?)<\/table>/.exec(page.body)![1];
    expect(deliveries.match(/<td>TransactionStatus<\/td>/g)).toHaveLength(2);
    expect(deliveries.match(/<td>InstallmentStatus<\/td>/g)).toHaveLength(2);
    // A second cancel is the API's 409, as a page.
    const again = await c.post(`/dashboard/payments/${p.paymentId}/cancel`, {});
    expect(again.statusCode).toBe(409);
  });

  it('the date filter is in Brasília days of business time (the sandbox clock moved two days)', async () => {
    const before = new Date(t.ctx.clock.now().getTime() - 3 * 3600_000).toISOString().slice(0, 10);
    // The advance runs every due job: the webhooks to the test's unreachable URL stop first.
    const removed = await t.inject({ method: 'DELETE', url: `/integration/api/webhooks/subscriptions?accountNumber=${m.accountNumber}`, headers: m.integration });
    expect(removed.statusCode, removed.body).toBe(200);
    const moved = await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { days: 2 } });
    expect(moved.statusCode).toBe(200);
    const later = await pay(t, m, { amount: 6_666, installments: 1, reference: 'later' });
    const today = new Date(new Date(later.createdAt).getTime() - 3 * 3600_000).toISOString().slice(0, 10);
    expect(today > before).toBe(true);
    expect(idsOf((await c.get(`/dashboard/payments?from=${today}&to=${today}`)).body)).toEqual([later.paymentId]);
    const old = idsOf((await c.get(`/dashboard/payments?from=${before}&to=${before}&reference=${made[0].referenceTransaction}`)).body);
    expect(old).toEqual([made[0].paymentId]);
    expect(idsOf((await c.get(`/dashboard/payments?from=${before}&to=${before}&reference=later`)).body)).toEqual([]);
    // The default range is the last 30 days up to today (business time): both are in it.
    const all = idsOf((await c.get('/dashboard/payments?reference=later')).body);
    expect(all).toEqual([later.paymentId]);
  });
});
