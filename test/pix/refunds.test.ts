import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import type { TestApp } from '../support/harness.js';
import { advanceTo, search } from '../settlement/support.js';
import { CHARGES, pixSandbox, type PixSandbox } from './sandbox-support.js';

/** Pix refunds (devoluções) through the sandbox PSP, which returns at once. */
describe(`Pix refunds in the sandbox (${testDialect})`, () => {
  let px: PixSandbox;
  let t: TestApp;
  let m: PixSandbox['m'];
  let other: PixSandbox['other'];
  beforeAll(async () => {
    px = await pixSandbox();
    ({ t, m, other } = px);
  });
  afterAll(() => px?.close());

  const events = async (chargeId: string) =>
    (await t.ctx.database.db.selectFrom('webhook_notifications').select(['type', 'payload']).where('merchant_id', '=', m.merchantId).where('type', 'like', 'pix.%').orderBy('id').execute())
      .map((n) => ({ type: n.type, data: JSON.parse(n.payload).data }))
      .filter((e) => e.data.chargeId === chargeId);
  const records = async (chargeNsu: string, date: string) =>
    ((await search(t, m.integration, 'search-by-operation-date-installments', { accountNumber: m.accountNumber, startDate: date, endDate: date })).json() as any[]).filter((r) => r.nsu === chargeNsu);

  it('partial refunds up to the amount paid, each Returned at once, the charge showing refundedAmount', async () => {
    const c = await px.paidCharge(10000);
    const first = await px.refund(c.id, { amount: 3000, reason: 'Troca' });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject({ chargeId: c.id, amount: 3000, status: 'Returned', nature: 'ORIGINAL', reason: 'Troca', statusReason: null });
    expect(first.json().refundId).toMatch(/^[a-zA-Z0-9]{1,35}$/);
    const rest = await px.refund(c.id, {});
    expect(rest.json()).toMatchObject({ amount: 7000, status: 'Returned' });
    expect((await px.charge(c.id)).refundedAmount).toBe(10000);
    expect((await px.refunds(c.id)).map((r: any) => [r.refundId, r.amount])).toEqual([[first.json().refundId, 3000], [rest.json().refundId, 7000]]);
    expect(await events(c.id)).toEqual([
      { type: 'pix.refunded', data: { chargeId: c.id, amount: 3000, refundId: first.json().refundId, nature: 'ORIGINAL', refundedAmount: 3000 } },
      { type: 'pix.refunded', data: { chargeId: c.id, amount: 7000, refundId: rest.json().refundId, nature: 'ORIGINAL', refundedAmount: 10000 } },
    ]);
  });

  it('refuses past the amount paid, 0, a charge not Paid and another merchant\'s charge: nothing recorded', async () => {
    const c = await px.paidCharge(5000);
    expect((await px.refund(c.id, { amount: 4000 })).statusCode).toBe(201);
    const over = await px.refund(c.id, { amount: 1001 });
    expect(over.statusCode).toBe(400);
    expect(over.json().map((e: any) => e.tag)).toEqual(['amount']);
    const zero = await px.refund(c.id, { amount: 0 });
    expect(zero.statusCode).toBe(400);
    expect(zero.json().map((e: any) => e.tag)).toEqual(['amount']);
    const pending = (await t.inject({ method: 'POST', url: CHARGES, headers: m.headers, payload: { amount: 100 } })).json();
    const notPaid = await px.refund(pending.id, { amount: 100 });
    expect(notPaid.statusCode).toBe(409);
    expect(notPaid.json().map((e: any) => e.tag)).toEqual(['status']);
    expect((await px.refund(c.id, { amount: 100 }, other.headers)).statusCode).toBe(404);
    expect((await t.inject({ method: 'GET', url: `${CHARGES}/${c.id}/refunds`, headers: other.headers })).statusCode).toBe(404);
    expect(await px.refunds(c.id)).toHaveLength(1);
    expect((await px.charge(c.id)).refundedAmount).toBe(4000);
  });

  it('honours the Idempotency-Key: the same refund answered again, made once', async () => {
    const c = await px.paidCharge(2000);
    const headers = { ...m.headers, 'idempotency-key': `pix-refund-${c.id}` };
    const a = await px.refund(c.id, { amount: 500 }, headers);
    const b = await px.refund(c.id, { amount: 500 }, headers);
    expect(b.json()).toEqual(a.json());
    expect(await px.refunds(c.id)).toHaveLength(1);
    expect((await px.charge(c.id)).refundedAmount).toBe(500);
  });

  it('conciliation: a Pix received on its day (D+0) is debited what it returns on the next receipt day (installment 0, receivedType D)', async () => {
    await advanceTo(t, '2027-03-02T10:00:00.000Z');
    const c = await px.paidCharge(10000);
    const { nsu } = await t.ctx.database.db.selectFrom('pix_charges').select('nsu').where('id', '=', c.id).executeTakeFirstOrThrow();
    expect(await records(nsu, '2027-03-02')).toHaveLength(1);
    expect((await px.refund(c.id, { amount: 2500 })).statusCode).toBe(201);
    const rows = await t.ctx.database.db.selectFrom('receivables').selectAll().where('source_id', '=', c.id).orderBy('installment_number').execute();
    expect(rows.map((r) => [r.installment_number, r.received_type, Number(r.installment_value)])).toEqual([
      [0, 'D', -250000],
      [1, rows[1].received_type, 1000000],
    ]);
    expect(rows[1].received_status).not.toBe('A');
    expect(rows[0]).toMatchObject({ nsu, expected_date: '2027-03-03' });
  });

  it('the sandbox fails a return (NAO_REALIZADO): NotDone with its reason, pix.refund_failed, what it took given back', async () => {
    const c = await px.paidCharge(6000);
    const r = (await px.refund(c.id, { amount: 6000 })).json();
    expect((await px.charge(c.id)).refundedAmount).toBe(6000);
    const before = await t.ctx.database.db.selectFrom('receivables').select(['installment_number', 'installment_value']).where('source_id', '=', c.id).execute();
    const failed = await t.inject({ method: 'POST', url: `/sandbox/pix/refunds/${r.refundId}/fail`, headers: t.adminHeaders });
    expect(failed.statusCode, failed.body).toBe(200);
    expect(failed.json()).toMatchObject({ refundId: r.refundId, status: 'NotDone', statusReason: expect.any(String) });
    expect((await px.charge(c.id)).refundedAmount).toBe(0);
    expect((await px.refunds(c.id))[0]).toMatchObject({ status: 'NotDone' });
    const after = await t.ctx.database.db.selectFrom('receivables').select(['installment_number', 'installment_value']).where('source_id', '=', c.id).execute();
    const net = (rows: { installment_value: number }[]) => rows.reduce((sum, row) => sum + Number(row.installment_value), 0);
    expect(net(after)).toBe(net(before) + 600000);
    expect((await events(c.id)).map((e) => e.type)).toEqual(['pix.refunded', 'pix.refund_failed']);
    expect((await events(c.id))[1].data).toMatchObject({ refundId: r.refundId, refundedAmount: 0, reason: expect.any(String) });
    expect((await t.inject({ method: 'POST', url: `/sandbox/pix/refunds/${r.refundId}/fail`, headers: t.adminHeaders })).statusCode).toBe(409);
    expect((await t.inject({ method: 'POST', url: '/sandbox/pix/refunds/nosuch/fail', headers: t.adminHeaders })).statusCode).toBe(404);
    // The whole amount is refundable again.
    expect((await px.refund(c.id, {})).json()).toMatchObject({ amount: 6000, status: 'Returned' });
  });
});
