import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CieloStandIn, gatewayEnvFor, STANDIN_MERCHANT_ID, STANDIN_MERCHANT_KEY, type CieloFaults } from '../standins/cielo.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { cardNumber, paymentBody, tokenize } from '../support/cards.js';
import { liftVelocity } from '../recurrence/support.js';

const PAY = '/gateway/v1/payments';
const TIMEOUT_MS = 400;

/**
 * Refunds through the Cielo connector against the stand-in, over real HTTP: one partial void
 * (`PUT /1/sales/{PaymentId}/void?amount=N`) per refund, and exactly one even when its answer is
 * lost: the sale's VoidedAmount tells whether it was made, at once or later in the job.
 */
describe(`refunds through Cielo (${testDialect})`, () => {
  let cielo: CieloStandIn;
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    cielo = await new CieloStandIn({ random: () => 0 }).start();
    t = await testApp({
      env: gatewayEnvFor(cielo, TIMEOUT_MS),
    });
    m = await t.merchant();
    await liftVelocity(t, m);
  });
  afterEach(() => cielo.setFaults({ voidDropAfterRecord: 0, voidDropBeforeRecord: 0, voidHang: 0, queryDown: false }));
  afterAll(async () => {
    await t.close();
    await cielo.stop();
  });

  const pay = async (amount = 10000) => {
    const numberToken = await tokenize(t, m, cardNumber('4532', { last: 1 }), { securityCode: '123' });
    const res = await t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ numberToken }, { payment: { transactionType: 'credit', amount, productType: 'avista', installments: 1 } }) });
    expect(res.json().status).toBe('Authorized');
    return res.json();
  };
  const refund = async (paymentId: string, amount?: number) => {
    const res = await t.inject({ method: 'POST', url: `${PAY}/${paymentId}/refunds`, headers: m.headers, payload: amount === undefined ? {} : { amount } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const sale = (paymentId: string) => cielo.sales().find((s) => s.MerchantOrderId === paymentId)!;
  /** The voids Cielo received for a sale, answered or not, as the amounts asked. */
  const voids = (paymentId: string) =>
    cielo
      .requests()
      .filter((r) => r.method === 'PUT' && r.path.startsWith(`/1/sales/${sale(paymentId).PaymentId}/void`))
      .map((r) => new URL(r.path, 'http://x').searchParams.get('amount'));
  const payment = async (paymentId: string) => (await t.inject({ method: 'GET', url: `${PAY}/${paymentId}`, headers: m.headers })).json();
  const list = async (paymentId: string) => (await t.inject({ method: 'GET', url: `${PAY}/${paymentId}/refunds`, headers: m.headers })).json().items;
  /** Past the settle window (2 x the timeout, wall clock), then the jobs due in a minute of business time. */
  const recoverLater = async () => {
    await new Promise((resolve) => setTimeout(resolve, 2 * TIMEOUT_MS + 50));
    expect((await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes: 1 } })).statusCode).toBe(200);
  };

  it('one partial void per refund, up to the full amount: the sale ends Voided and the payment Canceled', async () => {
    const { paymentId } = await pay(10000);
    expect(await refund(paymentId, 4000)).toMatchObject({ status: 'Succeeded' });
    expect(sale(paymentId)).toMatchObject({ Status: 2, VoidedAmount: 4000 });
    expect(await refund(paymentId, 3500)).toMatchObject({ status: 'Succeeded' });
    expect(sale(paymentId)).toMatchObject({ Status: 2, VoidedAmount: 7500 });
    expect(await refund(paymentId)).toMatchObject({ amount: 2500, status: 'Succeeded' });
    expect(sale(paymentId)).toMatchObject({ Status: 10, VoidedAmount: 10000 });
    expect(voids(paymentId)).toEqual(['4000', '3500', '2500']);
    expect(await payment(paymentId)).toMatchObject({ status: 'Canceled', refundedAmount: 10000 });
  });

  const lost: [string, Partial<CieloFaults>][] = [
    ['the connection dropped after the void was applied', { voidDropAfterRecord: 1 }],
    ['no answer within the timeout', { voidHang: 1 }],
  ];
  for (const [what, faults] of lost) {
    it(`${what}: the sale's VoidedAmount is read at once, Succeeded, exactly one void`, async () => {
      const { paymentId } = await pay(10000);
      expect(await refund(paymentId, 1000)).toMatchObject({ status: 'Succeeded' });
      cielo.setFaults(faults);
      expect(await refund(paymentId, 3000)).toMatchObject({ amount: 3000, status: 'Succeeded' });
      expect(voids(paymentId)).toEqual(['1000', '3000']);
      expect(sale(paymentId)).toMatchObject({ VoidedAmount: 4000 });
      expect(await payment(paymentId)).toMatchObject({ refundedAmount: 4000 });
    });
  }

  it('a lost answer the query cannot show yet: Pending, then the job finds it made; never sent again', async () => {
    const { paymentId } = await pay(10000);
    cielo.setFaults({ voidDropAfterRecord: 1, queryDown: true });
    const pending = await refund(paymentId, 6000);
    expect(pending).toMatchObject({ status: 'Pending' });
    cielo.setFaults({ queryDown: false });
    await recoverLater();
    expect(await list(paymentId)).toEqual([{ ...pending, status: 'Succeeded' }]);
    expect(voids(paymentId)).toEqual(['6000']);
    expect(await payment(paymentId)).toMatchObject({ status: 'Authorized', refundedAmount: 6000 });
  });

  it('a void that never reached Cielo: Pending, then Failed once the settle window is over; the next refund is one void more', async () => {
    const { paymentId } = await pay(10000);
    cielo.setFaults({ voidDropBeforeRecord: 1 });
    const pending = await refund(paymentId, 2000);
    expect(pending).toMatchObject({ status: 'Pending' });
    await recoverLater();
    expect(await list(paymentId)).toEqual([{ ...pending, status: 'Failed', returnMessage: 'The acquirer has no record of the refund; nothing was refunded' }]);
    expect(sale(paymentId).VoidedAmount).toBe(0);
    expect(await payment(paymentId)).toMatchObject({ refundedAmount: 0 });
    expect(await refund(paymentId, 2000)).toMatchObject({ status: 'Succeeded' });
    expect(voids(paymentId)).toEqual(['2000', '2000']);
    expect(sale(paymentId).VoidedAmount).toBe(2000);
  });

  it('a VoidedAmount that tells neither way (a void made in Cielo\'s back office meanwhile) leaves the refund Pending, never guessed', async () => {
    const { paymentId } = await pay(10000);
    cielo.setFaults({ voidDropBeforeRecord: 1 });
    const pending = await refund(paymentId, 2000);
    expect(pending.status).toBe('Pending');
    const res = await fetch(`${cielo.apiUrl}/1/sales/${sale(paymentId).PaymentId}/void?amount=500`, { method: 'PUT', headers: { MerchantId: STANDIN_MERCHANT_ID, MerchantKey: STANDIN_MERCHANT_KEY } });
    expect(res.status).toBe(200);
    await recoverLater();
    expect(await list(paymentId)).toEqual([pending]);
    expect(await payment(paymentId)).toMatchObject({ refundedAmount: 0 });
  });

  it("Cielo's refusal is a Failed refund with its reason; nothing changes", async () => {
    const { paymentId } = await pay(5000);
    // Voided in Cielo's back office, behind the gateway's back.
    const res = await fetch(`${cielo.apiUrl}/1/sales/${sale(paymentId).PaymentId}/void`, { method: 'PUT', headers: { MerchantId: STANDIN_MERCHANT_ID, MerchantKey: STANDIN_MERCHANT_KEY } });
    expect(res.status).toBe(200);
    expect(await refund(paymentId, 1000)).toMatchObject({ status: 'Failed', returnMessage: 'Cielo refused the refund: 309 Transaction not available to void' });
    expect(await payment(paymentId)).toMatchObject({ status: 'Authorized', refundedAmount: 0 });
  });

  it('a cancel after a partial refund voids what is left of the sale', async () => {
    const { paymentId } = await pay(10000);
    expect(await refund(paymentId, 3000)).toMatchObject({ status: 'Succeeded' });
    const canceled = await t.inject({ method: 'POST', url: `${PAY}/${paymentId}/cancel`, headers: m.headers });
    expect(canceled.statusCode, canceled.body).toBe(200);
    expect(canceled.json()).toMatchObject({ status: 'Canceled', refundedAmount: 3000 });
    expect(voids(paymentId)).toEqual(['3000', '7000']);
    expect(sale(paymentId)).toMatchObject({ Status: 10, VoidedAmount: 10000 });
  });
});
