import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { paymentBody, vault } from '../support/cards.js';
import { blockedPayment } from './operator-support.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { DashboardClient } from './support.js';

describe(`operator dashboard: review queue (${testDialect})`, () => {
  let t: TestApp;
  let op: DashboardClient;
  let a: TestMerchant;
  let b: TestMerchant;
  const status = async (m: TestMerchant, id: string) => (await t.inject({ method: 'GET', url: `/gateway/v1/payments/${id}`, headers: m.headers })).json().status;

  beforeAll(async () => {
    t = await testApp();
    [a, b] = [await t.merchant(), await t.merchant()];
    op = new DashboardClient(t);
    await op.loginOperator();
  });
  afterAll(() => t?.close());

  it("lists every merchant's Blocked payments oldest first, keyset-paged; approve and reject go through the review service", async () => {
    const first = await blockedPayment(t, a, 'rev-a1');
    await t.ctx.sandboxClock!.advanceBy({ minutes: 1 });
    const second = await blockedPayment(t, b, 'rev-b1');
    // An Authorized payment is not in the queue.
    const ok = await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: a.headers, payload: paymentBody({ vaultId: await vault(t, a, '4111111111111111') }, { referenceTransaction: 'not-held' }) });
    expect(ok.json().status).toBe('Authorized');

    const page = await op.get('/dashboard/operator/review');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Fila de revisão');
    expect(page.body.indexOf(first)).toBeGreaterThan(0);
    expect(page.body.indexOf(first)).toBeLessThan(page.body.indexOf(second));
    expect(page.body).not.toContain('not-held');
    expect(page.body).toContain('sandbox_review');
    expect(page.body).toContain('411111******1111');
    expect(page.body).toContain('data-confirm=');

    const approved = await op.post(`/dashboard/operator/review/${first}`, { decision: 'approve' });
    expect(approved.statusCode).toBe(303);
    expect(approved.headers.location).toBe(`/dashboard/operator/review?done=${first}&status=Authorized`);
    expect(await status(a, first)).toBe('Authorized');
    const notice = await op.get(approved.headers.location as string);
    expect(notice.body).toContain(`Pagamento ${first}: agora Authorized.`);
    expect(notice.body).not.toContain(`/dashboard/operator/review/${first}"`);

    const rejected = await op.post(`/dashboard/operator/review/${second}`, { decision: 'reject' });
    expect(rejected.headers.location).toBe(`/dashboard/operator/review?done=${second}&status=Canceled`);
    expect(await status(b, second)).toBe('Canceled');

    // Deciding twice: the service's 409, as a page; a bad decision: 400.
    const twice = await op.post(`/dashboard/operator/review/${first}`, { decision: 'reject' });
    expect(twice.statusCode).toBe(409);
    expect(twice.body).toContain('Only a Blocked payment can be reviewed');
    expect(await status(a, first)).toBe('Authorized');
    const third = await blockedPayment(t, a, 'rev-a2');
    const bad = await op.post(`/dashboard/operator/review/${third}`, { decision: 'maybe' });
    expect(bad.statusCode).toBe(400);
    expect(await status(a, third)).toBe('Blocked');
    // Without the CSRF token: refused, still Blocked.
    expect((await op.post(`/dashboard/operator/review/${third}`, { decision: 'approve' }, { csrf: null })).statusCode).toBe(403);
    expect(await status(a, third)).toBe('Blocked');
    expect((await op.post('/dashboard/operator/review/unknown-id', { decision: 'approve' })).statusCode).toBe(404);
  });

  it('pages with a keyset cursor (no offset): 25 a page, oldest first', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 26; i++) ids.push(await blockedPayment(t, b, `page-${i}`));
    const first = await op.get('/dashboard/operator/review');
    const next = /href="(\/dashboard\/operator\/review\?after=[^"]+)"/.exec(first.body)![1].replaceAll('&amp;', '&');
    const second = await op.get(next);
    expect(second.statusCode).toBe(200);
    expect(second.body).toContain(ids.at(-1));
    expect(first.body).not.toContain(ids.at(-1));
    expect(second.body).toContain('Primeira página');
    expect((await op.get('/dashboard/operator/review?after=garbage')).statusCode).toBe(400);
  });

  it('the review queue reads the partial index (no scan of the payments table)', async () => {
    if (testDialect !== 'sqlite') return;
    const { sql } = await import('kysely');
    const plan = await sql<{ detail: string }>`explain query plan select payment_id from payments where status = 'Blocked' order by created_at, payment_id limit 26`.execute(t.ctx.database.db);
    expect(plan.rows.map((r) => r.detail).join(' ')).toContain('payments_review_queue_idx');
  });
});
