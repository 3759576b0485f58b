import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import type { TestApp } from '../support/harness.js';
import { CHARGES, pixSandbox, type PixSandbox } from './sandbox-support.js';

const DISPUTES = '/gateway/v1/disputes';

/** MED claims against a received Pix: disputes of type pix_med, the amount held while open, the sandbox PSP's MED return when lost. */
describe(`MED claims in the sandbox (${testDialect})`, () => {
  let px: PixSandbox;
  let t: TestApp;
  let m: PixSandbox['m'];
  let other: PixSandbox['other'];
  beforeAll(async () => {
    px = await pixSandbox();
    ({ t, m, other } = px);
  });
  afterAll(() => px?.close());

  const infraction = (id: string, payload: object = {}) => t.inject({ method: 'POST', url: `/sandbox/pix/${id}/infraction`, headers: t.adminHeaders, payload });
  const register = (payload: object) => t.inject({ method: 'POST', url: '/admin/disputes', headers: t.adminHeaders, payload });
  const resolve = (disputeId: string, outcome: 'won' | 'lost') => t.inject({ method: 'POST', url: `/admin/disputes/${disputeId}/resolve`, headers: t.adminHeaders, payload: { outcome } });
  const installment = async (id: string) => (await t.ctx.database.db.selectFrom('receivables').select('installment_status').where('source_id', '=', id).where('installment_number', '=', 1).executeTakeFirstOrThrow()).installment_status;
  const events = async (key: string, value: string) =>
    (await t.ctx.database.db.selectFrom('webhook_notifications').select(['type', 'payload']).where('merchant_id', '=', m.merchantId).where('channel', '=', 'webhook').orderBy('id').execute())
      .map((n) => ({ type: n.type, data: JSON.parse(n.payload).data }))
      .filter((e) => e.data?.[key] === value);

  it('a claim opens a pix_med dispute, holds its amount (receivable B, not refundable) until won, then releases it', async () => {
    const c = await px.paidCharge(10000);
    const res = await infraction(c.id, { amount: 6000 });
    expect(res.statusCode, res.body).toBe(201);
    const d = res.json();
    expect(d).toMatchObject({ type: 'pix_med', pixChargeId: c.id, paymentId: null, status: 'NeedsResponse', reasonCode: 'FR01', amount: 6000, reasonMessage: expect.stringMatching(/fraude/) });
    expect(await installment(c.id)).toBe('B');
    expect((await t.inject({ method: 'GET', url: `${DISPUTES}/${d.disputeId}`, headers: m.headers })).json()).toMatchObject({ type: 'pix_med', pixChargeId: c.id });
    expect((await t.inject({ method: 'GET', url: `${DISPUTES}/${d.disputeId}`, headers: other.headers })).statusCode).toBe(404);
    expect((await t.inject({ method: 'GET', url: DISPUTES, headers: m.headers })).json().items.map((i: any) => i.disputeId)).toContain(d.disputeId);
    // Held: only the rest can be refunded; a second claim waits.
    const over = await px.refund(c.id, { amount: 4001 });
    expect(over.statusCode).toBe(400);
    expect(over.json().map((e: any) => e.tag)).toEqual(['amount']);
    expect((await infraction(c.id)).statusCode).toBe(409);
    // The merchant's defence.
    const evidence = await t.inject({ method: 'POST', url: `${DISPUTES}/${d.disputeId}/evidence`, headers: m.headers, payload: { text: 'Entregue ao comprador, recibo assinado.' } });
    expect(evidence.json()).toMatchObject({ status: 'UnderReview' });
    expect((await resolve(d.disputeId, 'won')).json()).toMatchObject({ status: 'Won' });
    expect(await installment(c.id)).toBe('A');
    expect(await px.refunds(c.id)).toEqual([]);
    expect((await px.refund(c.id, {})).json()).toMatchObject({ amount: 10000, status: 'Returned' });
    expect((await events('disputeId', d.disputeId)).map((e) => [e.type, e.data.type, e.data.pixChargeId])).toEqual([
      ['dispute.created', 'pix_med', c.id],
      ['dispute.updated', 'pix_med', c.id],
      ['dispute.closed', 'pix_med', c.id],
    ]);
  });

  const advance = () => t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes: 0 } });

  it("lost: nothing is asked of the PSP; the sandbox PSP makes the MED return itself, reflected as a PSP's report is: refunded, the hold replaced, the claim closed with it", async () => {
    const c = await px.paidCharge(8000);
    const d = (await register({ pixChargeId: c.id, reasonCode: 'BE08', amount: 3000 })).json();
    expect(d).toMatchObject({ type: 'pix_med', amount: 3000, reasonCode: 'BE08', refundId: null });
    const lost = (await resolve(d.disputeId, 'lost')).json();
    const [r, ...more] = await px.refunds(c.id);
    expect(more).toEqual([]);
    // Recorded under the return's rtrId, as the SPI writes one (D, ISPB, yyyyMMddHHmm, 11).
    expect(r).toMatchObject({ amount: 3000, status: 'Returned', nature: 'MED_OPERACIONAL', refundId: expect.stringMatching(/^D00000000\d{12}[A-Z0-9]{11}$/), reason: expect.stringMatching(/^MED return made by the PSP/) });
    expect(lost).toMatchObject({ status: 'Lost', refundId: r.refundId, closedAt: expect.any(String) });
    expect((await px.charge(c.id)).refundedAmount).toBe(3000);
    expect(await installment(c.id)).toBe('A');
    const claimEvents = await events('disputeId', d.disputeId);
    expect(claimEvents.map((e) => [e.type, e.data.status])).toEqual([
      ['dispute.created', 'NeedsResponse'],
      ['dispute.updated', 'Lost'],
      ['dispute.closed', 'Lost'],
    ]);
    expect(claimEvents[1].data).toMatchObject({ oldStatus: 'NeedsResponse', awaitingReturn: true });
    expect(claimEvents[2].data).toMatchObject({ oldStatus: 'Lost', amount: 3000, refundId: r.refundId, returnedAmount: 3000 });
    const refundEvents = async () => (await events('chargeId', c.id)).filter((e) => e.type.startsWith('pix.refund'));
    expect((await refundEvents()).map((e) => [e.type, e.data.nature, e.data.refundId])).toEqual([['pix.refunded', 'MED_OPERACIONAL', r.refundId]]);
    // The sandbox PSP's job, scheduled with the decision, finds its return made: nothing twice.
    expect((await advance()).statusCode).toBe(200);
    expect(await px.refunds(c.id)).toHaveLength(1);
    expect((await px.charge(c.id)).refundedAmount).toBe(3000);
    expect((await events('disputeId', d.disputeId)).filter((e) => e.type === 'dispute.closed')).toHaveLength(1);
    expect(await refundEvents()).toHaveLength(1);
    // A MED return is the PSP's: the sandbox cannot fail it.
    expect((await t.inject({ method: 'POST', url: `/sandbox/pix/refunds/${r.refundId}/fail`, headers: t.adminHeaders })).statusCode).toBe(409);
    // The rest is the merchant's to refund.
    expect((await px.refund(c.id, {})).json()).toMatchObject({ amount: 5000, nature: 'ORIGINAL' });
  });

  it('lost, the claim waits held for the return (Lost, closedAt null; the amount held, B); the return the sandbox PSP scheduled comes after a crash', async () => {
    const c = await px.paidCharge(5000);
    const d = (await infraction(c.id, { amount: 2000 })).json();
    const afterLost = t.ctx.pix.medClaims.afterLost;
    // The process dies right after the decision's commit: only the scheduled job is left.
    t.ctx.pix.medClaims.afterLost = async () => {};
    let lost;
    try {
      lost = (await resolve(d.disputeId, 'lost')).json();
    } finally {
      t.ctx.pix.medClaims.afterLost = afterLost;
    }
    expect(lost).toMatchObject({ status: 'Lost', closedAt: null, refundId: null });
    expect(await px.refunds(c.id)).toEqual([]);
    expect((await px.charge(c.id)).refundedAmount).toBe(0);
    expect(await installment(c.id)).toBe('B');
    expect(await t.ctx.pix.detail(m.merchantId, c.id)).toMatchObject({ medDisputeId: d.disputeId, medHeldAmount: 2000, refundable: 3000 });
    // Decided: no second decision.
    expect((await resolve(d.disputeId, 'won')).statusCode).toBe(409);
    expect((await advance()).statusCode).toBe(200);
    expect(await px.refunds(c.id)).toMatchObject([{ amount: 2000, status: 'Returned', nature: 'MED_FRAUDE' }]);
    expect((await t.inject({ method: 'GET', url: `${DISPUTES}/${d.disputeId}`, headers: m.headers })).json()).toMatchObject({ status: 'Lost', closedAt: expect.any(String) });
    expect(await t.ctx.pix.detail(m.merchantId, c.id)).toMatchObject({ medDisputeId: null, medHeldAmount: 0, refundedAmount: 2000, refundable: 3000 });
    expect(await installment(c.id)).toBe('A');
  });

  it('accepted by the merchant: a MED_FRAUDE return of the whole claim, made by the sandbox PSP', async () => {
    const c = await px.paidCharge(2500);
    const d = (await infraction(c.id)).json();
    expect((await t.inject({ method: 'POST', url: `${DISPUTES}/${d.disputeId}/accept`, headers: m.headers })).json()).toMatchObject({ status: 'Accepted', closedAt: expect.any(String) });
    expect(await px.refunds(c.id)).toMatchObject([{ amount: 2500, status: 'Returned', nature: 'MED_FRAUDE' }]);
    expect((await px.charge(c.id)).refundedAmount).toBe(2500);
    expect((await events('disputeId', d.disputeId)).at(-1)).toMatchObject({ type: 'dispute.closed', data: { status: 'Accepted', oldStatus: 'Accepted' } });
  });

  it('refuses a claim of an unknown or unpaid charge, a reason that is no MED one, both ids, and more than is left', async () => {
    const c = await px.paidCharge(1000);
    expect((await infraction('no-such-charge')).statusCode).toBe(404);
    const pending = (await t.inject({ method: 'POST', url: CHARGES, headers: m.headers, payload: { amount: 100 } })).json();
    expect((await infraction(pending.id)).statusCode).toBe(409);
    expect((await register({ pixChargeId: c.id, reasonCode: '104' })).json().map((e: any) => e.tag)).toEqual(['reasonCode']);
    expect((await register({ pixChargeId: c.id, paymentId: 'x', reasonCode: 'FR01' })).statusCode).toBe(400);
    expect((await register({ reasonCode: 'FR01' })).statusCode).toBe(400);
    expect((await infraction(c.id, { amount: 1001 })).json().map((e: any) => e.tag)).toEqual(['amount']);
    expect(await installment(c.id)).toBe('A');
  });
});
