import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { pay, settlementMerchant } from '../settlement/support.js';
import { DashboardClient } from './support.js';

const disputeIdsOf = (body: string) => [...body.matchAll(/href="\/dashboard\/disputes\/([0-9a-f-]{36})"/g)].map((m) => m[1]);

describe(`dashboard: disputes, merchant and operator (${testDialect})`, () => {
  let t: TestApp;
  let m: Awaited<ReturnType<typeof settlementMerchant>>;
  let other: Awaited<ReturnType<typeof settlementMerchant>>;
  let c: DashboardClient;
  let op: DashboardClient;
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).toString('base64');
  const apiDispute = async (id: string) => (await t.inject({ method: 'GET', url: `/gateway/v1/disputes/${id}`, headers: m.headers })).json();
  const register = async (fields: Record<string, string>) => {
    await op.get('/dashboard/operator/disputes');
    return op.post('/dashboard/operator/disputes', fields);
  };
  const registered = (location: string) => /id=([0-9a-f-]{36})/.exec(location)![1];

  beforeAll(async () => {
    t = await testApp();
    m = await settlementMerchant(t);
    other = await settlementMerchant(t);
    c = new DashboardClient(t);
    await c.loginMerchant(m);
    op = new DashboardClient(t);
    await op.loginOperator();
  });
  afterAll(() => t?.close());

  it('the operator registers chargebacks (refusals shown as the API error array); the merchant sees its own, deadline first', async () => {
    const p1 = await pay(t, m, { amount: 9_000, installments: 1, reference: 'd1' });
    const p2 = await pay(t, m, { amount: 5_000, installments: 1, reference: 'd2' });
    const p3 = await pay(t, other, { amount: 7_000, installments: 1, reference: 'd3' });

    const bad = await register({ paymentId: p1.paymentId, reasonCode: '4837' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('<li>reasonCode: 4837 is not a visa chargeback reason code.</li>');
    const typo = await register({ paymentId: p1.paymentId, reasonCode: '104', amount: 'ten' });
    expect(typo.statusCode).toBe(400);
    expect(typo.body).toContain('<li>amount: amount must be a whole number.</li>');
    const forged = await op.post('/dashboard/operator/disputes', { paymentId: p1.paymentId, reasonCode: '104' }, { csrf: null });
    expect(forged.statusCode).toBe(403);

    const late = await register({ paymentId: p1.paymentId, reasonCode: '104', respondBy: '2027-03-01' });
    expect(late.statusCode, late.body).toBe(303);
    const soon = await register({ paymentId: p2.paymentId, reasonCode: '104', amount: '2000', respondBy: '2027-01-05' });
    expect(soon.statusCode, soon.body).toBe(303);
    const theirs = await register({ paymentId: p3.paymentId, reasonCode: '104' });
    expect(theirs.statusCode).toBe(303);
    const [lateId, soonId, theirId] = [late, soon, theirs].map((r) => registered(r.headers.location as string));
    expect(await apiDispute(soonId)).toMatchObject({ amount: 2_000, respondBy: '2027-01-05', status: 'NeedsResponse' });

    const notice = await op.get(soon.headers.location as string);
    expect(notice.body).toContain(`Disputa ${soonId} registrada.`);
    // Every merchant's open disputes, the nearest deadline first.
    const ids = [soonId, theirId, lateId].map((id) => notice.body.indexOf(`/dashboard/operator/disputes/${id}/resolve`));
    expect(ids.every((i) => i > 0)).toBe(true);
    expect(ids[0]).toBeLessThan(ids[2]);

    const list = await c.get('/dashboard/disputes');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('Disputas (chargebacks)');
    expect(list.body).toContain('href="/dashboard/disputes" aria-current="page"');
    expect(disputeIdsOf(list.body)).toEqual([soonId, lateId]);
    expect((await c.get(`/dashboard/disputes/${theirId}`)).statusCode).toBe(404);
  });

  it('the merchant sends evidence (text and a base64 file) and accepts; refusals are the API error array on the page', async () => {
    const p = await pay(t, m, { amount: 6_000, installments: 1, reference: 'ev' });
    const id = registered((await register({ paymentId: p.paymentId, reasonCode: '104' })).headers.location as string);
    const page = await c.get(`/dashboard/disputes/${id}`);
    expect(page.body).toContain('data-evidence-form');
    expect(page.body).toContain('type="file"');

    const wrong = await c.post(`/dashboard/disputes/${id}/evidence`, { text: 'x', fileName: 'a.pdf', contentType: 'application/pdf', contentBase64: png });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toMatch(/<li>files\/0\/[^<]+<\/li>|<li>files[^<]+<\/li>/);
    expect((await apiDispute(id)).evidence).toEqual([]);

    const sent = await c.post(`/dashboard/disputes/${id}/evidence`, { text: 'Delivered on 2 Dec, signed.', fileName: 'receipt.png', contentType: 'image/png', contentBase64: png });
    expect(sent.statusCode, sent.body).toBe(303);
    const after = await c.get(sent.headers.location as string);
    expect(after.body).toContain('Evidências enviadas; a disputa está em análise.');
    expect(after.body).toContain('receipt.png');
    const api = await apiDispute(id);
    expect(api.status).toBe('UnderReview');
    expect(api.evidence[0]).toMatchObject({ text: 'Delivered on 2 Dec, signed.', files: [{ fileName: 'receipt.png', contentType: 'image/png' }] });

    // Without the script the form posts its text alone.
    expect((await c.post(`/dashboard/disputes/${id}/evidence`, { text: 'Tracking code BR123.', fileName: '', contentType: '', contentBase64: '' })).statusCode).toBe(303);
    expect((await apiDispute(id)).evidence).toHaveLength(2);

    const accepted = await c.post(`/dashboard/disputes/${id}/accept`, {});
    expect(accepted.statusCode).toBe(303);
    expect((await apiDispute(id)).status).toBe('Accepted');
    const closed = await c.get(accepted.headers.location as string);
    expect(closed.body).toContain('Disputa aceita.');
    expect(closed.body).not.toContain('data-evidence-form');
    // A closed dispute takes no more evidence: 409 on the page.
    const refused = await c.post(`/dashboard/disputes/${id}/evidence`, { text: 'too late' });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toMatch(/<li>status: [^<]+<\/li>/);
  });

  it('the operator resolves won and lost; a closed dispute leaves the list and cannot be resolved again', async () => {
    const pw = await pay(t, m, { amount: 4_000, installments: 1, reference: 'won' });
    const pl = await pay(t, m, { amount: 3_000, installments: 1, reference: 'lost' });
    const won = registered((await register({ paymentId: pw.paymentId, reasonCode: '104' })).headers.location as string);
    const lost = registered((await register({ paymentId: pl.paymentId, reasonCode: '104' })).headers.location as string);
    const w = await op.post(`/dashboard/operator/disputes/${won}/resolve`, { outcome: 'won' });
    expect(w.statusCode).toBe(303);
    expect((await op.get(w.headers.location as string)).body).toContain(`Disputa ${won}: ganha.`);
    const l = await op.post(`/dashboard/operator/disputes/${lost}/resolve`, { outcome: 'lost' });
    expect(l.statusCode).toBe(303);
    expect((await apiDispute(won)).status).toBe('Won');
    expect((await apiDispute(lost)).status).toBe('Lost');
    const page = await op.get('/dashboard/operator/disputes');
    expect(page.body).not.toContain(`/dashboard/operator/disputes/${won}/resolve`);
    const again = await op.post(`/dashboard/operator/disputes/${won}/resolve`, { outcome: 'lost' });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('role="alert"');
    // A merchant never reaches the operator page.
    expect((await c.get('/dashboard/operator/disputes')).statusCode).toBe(404);
  });
});
