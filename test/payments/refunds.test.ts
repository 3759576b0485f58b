import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { pay, settlementMerchant } from '../settlement/support.js';

type Merchant = Awaited<ReturnType<typeof settlementMerchant>>;
const PAY = '/gateway/v1/payments';

/**
 * Refunds of card payments through the sandbox acquirer: several partial refunds up to the
 * amount, the full one cancelling the payment as a cancel does, and every refusal changing
 * nothing (no refund row, nothing at the acquirer, the payment as it was).
 */
describe(`card refunds (${testDialect})`, () => {
  let t: TestApp;
  let m: Merchant;
  beforeAll(async () => {
    t = await testApp();
    m = await settlementMerchant(t);
  });
  afterAll(() => t.close());

  const refund = (paymentId: string, body?: object, headers: Record<string, string> = {}, merchant: Merchant = m) =>
    t.inject({ method: 'POST', url: `${PAY}/${paymentId}/refunds`, headers: { ...merchant.headers, ...headers }, ...(body === undefined ? {} : { payload: body }) });
  const refunds = async (paymentId: string) => (await t.inject({ method: 'GET', url: `${PAY}/${paymentId}/refunds`, headers: m.headers })).json();
  const payment = async (paymentId: string) => (await t.inject({ method: 'GET', url: `${PAY}/${paymentId}`, headers: m.headers })).json();
  /** The sandbox acquirer's refunds of a sale (its ledger keys `refund:<payment id>:<refund id>`). */
  const ledger = (paymentId: string) =>
    t.ctx.database.db.selectFrom('sandbox_acquirer_ledger').select(['amount', 'outcome']).where('idempotency_key', 'like', `refund:${paymentId}:%`).orderBy('created_at').orderBy('idempotency_key').execute();
  const rows = (paymentId: string) => t.ctx.database.db.selectFrom('payment_refunds').selectAll().where('payment_id', '=', paymentId).execute();
  const events = async (paymentId: string) =>
    (await t.ctx.database.db.selectFrom('payment_events').select('new_status').where('payment_id', '=', paymentId).orderBy('id').execute()).map((e) => e.new_status);

  it('refunds in parts up to the captured amount; the last part (no amount: what is left) cancels the payment', async () => {
    const { paymentId } = await pay(t, m, { amount: 12000, installments: 1 });
    const first = await refund(paymentId, { amount: 4000 });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject({ paymentId, amount: 4000, status: 'Succeeded', returnMessage: null });
    expect(first.json().refundId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.json().createdAt).toMatch(/Z$/);
    expect(await payment(paymentId)).toMatchObject({ status: 'Authorized', refundedAmount: 4000 });

    expect((await refund(paymentId, { amount: 5000 })).json()).toMatchObject({ amount: 5000, status: 'Succeeded' });
    expect(await payment(paymentId)).toMatchObject({ status: 'Authorized', refundedAmount: 9000 });

    const last = await refund(paymentId, {});
    expect(last.json()).toMatchObject({ amount: 3000, status: 'Succeeded' });
    expect(await payment(paymentId)).toMatchObject({ status: 'Canceled', refundedAmount: 12000 });
    // Exactly as a cancel: one Canceled event after the authorization.
    expect(await events(paymentId)).toEqual(['Authorized', 'Canceled']);

    const list = await refunds(paymentId);
    expect(list.items.map((r: { amount: number; status: string }) => [r.amount, r.status])).toEqual([
      [4000, 'Succeeded'],
      [5000, 'Succeeded'],
      [3000, 'Succeeded'],
    ]);
    expect(list.items[0]).toEqual(first.json());
    // One refund at the acquirer per refund.
    expect(await ledger(paymentId)).toEqual([
      { amount: 4000, outcome: 'refunded' },
      { amount: 5000, outcome: 'refunded' },
      { amount: 3000, outcome: 'refunded' },
    ]);
  });

  it('a refund with no body at all refunds what is left', async () => {
    const { paymentId } = await pay(t, m, { amount: 2500, installments: 1 });
    const res = await refund(paymentId);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ amount: 2500, status: 'Succeeded' });
    expect(await payment(paymentId)).toMatchObject({ status: 'Canceled', refundedAmount: 2500 });
  });

  it('refuses a refund past what is left, of 0, or of a payment that is not Authorized or Paid, and changes nothing', async () => {
    const { paymentId } = await pay(t, m, { amount: 10000, installments: 1 });
    expect((await refund(paymentId, { amount: 6000 })).json().status).toBe('Succeeded');
    const before = { payment: await payment(paymentId), rows: await rows(paymentId), ledger: await ledger(paymentId), events: await events(paymentId) };

    const over = await refund(paymentId, { amount: 4001 });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toEqual([{ tag: 'amount', description: expect.stringContaining('4000') }]);
    const zero = await refund(paymentId, { amount: 0 });
    expect(zero.statusCode).toBe(400);
    expect(zero.json()[0].tag).toBe('amount');
    expect((await refund(paymentId, { amount: -5 })).statusCode).toBe(400);
    expect((await refund(paymentId, { amount: 10.5 })).statusCode).toBe(400);

    expect({ payment: await payment(paymentId), rows: await rows(paymentId), ledger: await ledger(paymentId), events: await events(paymentId) }).toEqual(before);

    // Fully refunded (Canceled) now: any further refund is a state conflict.
    expect((await refund(paymentId, { amount: 4000 })).json().status).toBe('Succeeded');
    const again = await refund(paymentId, { amount: 1 });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual([{ tag: 'status', description: expect.stringContaining('Canceled') }]);
    expect(await rows(paymentId)).toHaveLength(2);
  });

  it('refuses Denied, Blocked and cancelled payments (409 status), and another merchant\'s (404)', async () => {
    const denied = await pay(t, m, { amount: 1000, installments: 1, card: '4000000000000002' });
    expect(denied.status).toBe('Denied');
    const blocked = await pay(t, m, { amount: 1000, installments: 1, email: 'held@review.test' });
    expect(blocked.status).toBe('Blocked');
    const canceled = await pay(t, m, { amount: 1000, installments: 1 });
    expect((await t.inject({ method: 'POST', url: `${PAY}/${canceled.paymentId}/cancel`, headers: m.headers })).statusCode).toBe(200);
    for (const { paymentId, status } of [denied, blocked, { paymentId: canceled.paymentId, status: 'Canceled' }]) {
      const res = await refund(paymentId, { amount: 100 });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual([{ tag: 'status', description: expect.stringContaining(status) }]);
      expect(await rows(paymentId)).toEqual([]);
      expect(await ledger(paymentId)).toEqual([]);
    }

    const other = await settlementMerchant(t);
    const theirs = await pay(t, other, { amount: 1000, installments: 1 });
    expect((await refund(theirs.paymentId, { amount: 100 })).statusCode).toBe(404);
    expect((await t.inject({ method: 'GET', url: `${PAY}/${theirs.paymentId}/refunds`, headers: m.headers })).statusCode).toBe(404);
    expect((await refund('no-such-payment', { amount: 100 })).statusCode).toBe(404);
    expect(await rows(theirs.paymentId)).toEqual([]);
    // The owner refunds it; the other merchant's list never shows it.
    expect((await refund(theirs.paymentId, { amount: 100 }, {}, other)).json().status).toBe('Succeeded');
  });

  it('honours Idempotency-Key: the same key and body replays the refund, a different body is 409', async () => {
    const { paymentId } = await pay(t, m, { amount: 10000, installments: 1 });
    const first = await refund(paymentId, { amount: 1000 }, { 'idempotency-key': `refund-${paymentId}` });
    expect(first.statusCode).toBe(201);
    const replay = await refund(paymentId, { amount: 1000 }, { 'idempotency-key': `refund-${paymentId}` });
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.json());
    const changed = await refund(paymentId, { amount: 2000 }, { 'idempotency-key': `refund-${paymentId}` });
    expect(changed.statusCode).toBe(409);
    expect(await rows(paymentId)).toHaveLength(1);
    expect(await ledger(paymentId)).toHaveLength(1);
    expect(await payment(paymentId)).toMatchObject({ refundedAmount: 1000 });
    // Without a key, the same body is a second refund.
    expect((await refund(paymentId, { amount: 1000 })).json().status).toBe('Succeeded');
    expect(await payment(paymentId)).toMatchObject({ refundedAmount: 2000 });
  });

  it('the sandbox acquirer answers a repeated refund key with its first answer and never refunds past the sale', async () => {
    const { paymentId } = await pay(t, m, { amount: 3000, installments: 1 });
    const sandbox = t.ctx.acquirer.sandbox;
    const request = { merchantId: m.merchantId, acquirerReference: `sbx_${paymentId}`, amount: 2000, refundedBefore: 0 };
    expect(await sandbox.refund(request, { idempotencyKey: 'r1' })).toEqual({ outcome: 'refunded' });
    expect(await sandbox.refund(request, { idempotencyKey: 'r1' })).toEqual({ outcome: 'refunded' });
    expect(await sandbox.refund(request, { idempotencyKey: 'r2' })).toEqual({ outcome: 'failed', returnMessage: 'The refund (2000) is more than what is left of the sale (1000)' });
    expect(await sandbox.refund({ ...request, amount: 1000 }, { idempotencyKey: 'r2' })).toMatchObject({ outcome: 'failed' });
    expect(await sandbox.refund({ ...request, amount: 1000 }, { idempotencyKey: 'r3' })).toEqual({ outcome: 'refunded' });
    expect(await sandbox.lookupRefund(request, { idempotencyKey: 'r1' })).toEqual({ outcome: 'refunded' });
    expect(await sandbox.lookupRefund(request, { idempotencyKey: 'r9' })).toBeNull();
    expect(await ledger(paymentId)).toEqual([
      { amount: 2000, outcome: 'refunded' },
      { amount: 2000, outcome: 'failed' },
      { amount: 1000, outcome: 'refunded' },
    ]);
  });

  it('a Paid payment refunded in part stays Paid; in full it is Canceled', async () => {
    const { paymentId } = await pay(t, m, { amount: 5000, installments: 1 });
    expect((await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { days: 35 } })).statusCode).toBe(200);
    expect((await payment(paymentId)).status).toBe('Paid');
    expect((await refund(paymentId, { amount: 1000 })).json().status).toBe('Succeeded');
    expect(await payment(paymentId)).toMatchObject({ status: 'Paid', refundedAmount: 1000 });
    expect((await refund(paymentId)).json()).toMatchObject({ amount: 4000, status: 'Succeeded' });
    expect(await payment(paymentId)).toMatchObject({ status: 'Canceled', refundedAmount: 5000 });
    expect(await events(paymentId)).toEqual(['Authorized', 'Paid', 'Canceled']);
  });
});
