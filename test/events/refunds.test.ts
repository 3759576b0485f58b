import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { paymentBody, tokenize } from '../support/cards.js';
import { Receiver } from '../webhooks/receiver.js';
import { advance } from '../webhooks/support.js';
import { expectEventShape, expectSigned, listening, received, type EventMerchant } from './support.js';

/**
 * The notifications of refunds, delivered over HTTP: `payment.refunded` for each refund made,
 * `refund.failed` for one the acquirer refused, the payment's urlCallBack, and when a refund
 * completes the payment, everything a cancel sends (payment.canceled, TransactionStatus and
 * InstallmentStatus -> Canceled). A debit settled later makes no InstallmentStatus of its own.
 */
describe(`refund events (${testDialect})`, () => {
  let t: TestApp;
  let m: EventMerchant;
  let secret: string;
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.start();
    t = await testApp();
    ({ m, secret } = await listening(t, receiver, '/all', ['*']));
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });
  beforeEach(() => {
    receiver.received.length = 0;
  });

  const settle = async () => {
    await advance(t, { minutes: 0 });
    await advance(t, { minutes: 0 });
  };
  const all = () => received(receiver, '/all');
  const callbacks = () => receiver.on('/callback').map((r) => r.json);

  async function pay(amount: number, installments = 1) {
    const numberToken = await tokenize(t, m, '4111111111111111');
    const body = paymentBody(
      { numberToken },
      { payment: { transactionType: 'credit', amount, productType: installments === 1 ? 'avista' : 'lojista', installments }, urlCallBack: receiver.url('/callback'), referenceTransaction: 'order-9' },
    );
    const res = await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  }
  const refund = async (paymentId: string, amount?: number) =>
    (await t.inject({ method: 'POST', url: `/gateway/v1/payments/${paymentId}/refunds`, headers: m.headers, payload: amount === undefined ? {} : { amount } })).json();

  it('a partial refund: payment.refunded and the callback with the refunded amount; the payment keeps its status', async () => {
    const p = await pay(12000);
    await settle();
    receiver.received.length = 0;
    const r = await refund(p.paymentId, 4000);
    await settle();
    expect(all().map((e) => e.json.type)).toEqual(['payment.refunded']);
    const [event] = all();
    expectEventShape(event);
    expectSigned(all(), secret);
    expect(event.json.data).toEqual({
      paymentId: p.paymentId,
      refundId: r.refundId,
      amount: 4000,
      refundedAmount: 4000,
      status: 'Authorized',
      referenceTransaction: 'order-9',
      nsu: p.nsu,
      authorizationCode: p.authorizationCode,
    });
    expect(callbacks()).toEqual([{ paymentId: p.paymentId, status: 'Authorized', referenceTransaction: 'order-9', amount: 12000, refundedAmount: 4000, moment: event.json.moment }]);
  });

  it('the refund that completes the payment: everything a cancel sends, then payment.refunded', async () => {
    const p = await pay(9000, 3);
    await refund(p.paymentId, 3000);
    await settle();
    receiver.received.length = 0;
    await refund(p.paymentId);
    await settle();
    expect(all().map((e) => [e.json.type, e.json.newValue ?? e.json.data?.status, e.json.installmentNumber])).toEqual([
      ['TransactionStatus', 'Canceled', 0],
      ['payment.canceled', 'Canceled', undefined],
      ['InstallmentStatus', 'Canceled', 1],
      ['InstallmentStatus', 'Canceled', 2],
      ['InstallmentStatus', 'Canceled', 3],
      ['payment.installment_canceled', 'Canceled', undefined],
      ['payment.installment_canceled', 'Canceled', undefined],
      ['payment.installment_canceled', 'Canceled', undefined],
      ['payment.refunded', 'Canceled', undefined],
    ]);
    expect(all()[0].json).toMatchObject({ nsu: p.nsu, codAuth: p.authorizationCode, oldValue: 'Authorized' });
    expect(all().at(-1)!.json.data).toMatchObject({ amount: 6000, refundedAmount: 9000, status: 'Canceled' });
    expect(callbacks()).toEqual([{ paymentId: p.paymentId, status: 'Canceled', referenceTransaction: 'order-9', amount: 9000, moment: expect.any(String) }]);
  });

  it('a refund the acquirer refuses: 201 Failed with its reason, refund.failed, nothing else', async () => {
    const p = await pay(5000);
    // The sale was voided at the acquirer behind the gateway's back: the sandbox refuses to refund it.
    await t.ctx.acquirer.sandbox.cancel({ merchantId: m.merchantId, acquirerReference: `sbx_${p.paymentId}`, amount: 5000 }, { idempotencyKey: 'out-of-band' });
    await settle();
    receiver.received.length = 0;
    const r = await refund(p.paymentId, 1000);
    expect(r).toMatchObject({ status: 'Failed', returnMessage: 'The sale was cancelled' });
    await settle();
    expect(all().map((e) => e.json.type)).toEqual(['refund.failed']);
    expect(all()[0].json.data).toEqual({ paymentId: p.paymentId, refundId: r.refundId, amount: 1000, returnMessage: 'The sale was cancelled' });
    expect(callbacks()).toEqual([]);
    const payment = (await t.inject({ method: 'GET', url: `/gateway/v1/payments/${p.paymentId}`, headers: m.headers })).json();
    expect(payment).toMatchObject({ status: 'Authorized', refundedAmount: 0 });
  });

  it('a debit settled on its day makes no InstallmentStatus (it is no installment)', async () => {
    const p = await pay(4000);
    await advance(t, { days: 40 });
    await refund(p.paymentId, 1000);
    receiver.received.length = 0;
    await advance(t, { days: 5 });
    expect(all().filter((e) => e.json.type === 'InstallmentStatus' || e.json.type === 'payment.installment_paid')).toEqual([]);
    const records = (await t.inject({ method: 'POST', url: `/integration/api/transaction/concil/search-by-code?accountNumber=${m.accountNumber}&nsu=${p.nsu}`, headers: m.integration })).json();
    expect(records.map((r: any) => [r.installmentNumber, r.receivedValue, r.receivedStatus])).toEqual([
      [0, -9.701, 'P'],
      [1, 38.554, 'P'],
    ]);
  });
});
