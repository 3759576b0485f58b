import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CieloStandIn, gatewayEnvFor, STANDIN_MERCHANT_ID, STANDIN_MERCHANT_KEY } from '../standins/cielo.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { cardNumber, paymentBody, tokenize, vault } from '../support/cards.js';
import { clock, liftVelocity, recurrence } from '../recurrence/support.js';

const PAY = '/gateway/v1/payments';
const TIMEOUT_MS = 400;

/** A card Cielo's sandbox answers by its last digit. */
const cardEndingIn = (last: number, prefix = '4532') => cardNumber(prefix, { last });

/**
 * The gateway with ACQUIRER=cielo against a stand-in of the Cielo E-commerce API 3.0 (a
 * separate HTTP server written from Cielo's reference), over real HTTP: every outcome, cancel,
 * answers lost in each way a network loses them, an acquirer down, and recurrence rules driven
 * by Cielo's codes.
 */
describe(`Cielo connector against the stand-in (${testDialect})`, () => {
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
  afterEach(() => cielo.reset());
  afterAll(async () => {
    await t.close();
    await cielo.stop();
  });

  const pay = async (pan: string, overrides: Record<string, unknown> = {}) => {
    const res = await t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ numberToken: await tokenize(t, m, pan, { securityCode: '123' }) }, overrides) });
    return { status: res.statusCode, body: res.json() };
  };
  const salesOf = (paymentId: string) => cielo.sales().filter((s) => s.MerchantOrderId === paymentId);
  const paymentIdIn = (description: string) => /payment ([0-9a-f-]{36})/.exec(description)![1];
  const stored = (paymentId: string) => t.ctx.database.db.selectFrom('payments').selectAll().where('payment_id', '=', paymentId).executeTakeFirstOrThrow();

  it('approves: one sale with our payment id as MerchantOrderId, captured, amount and installments as sent', async () => {
    const { status, body } = await pay(cardEndingIn(1), { payment: { transactionType: 'credit', amount: 15000, productType: 'lojista', installments: 3 } });
    expect(status).toBe(201);
    expect(body).toMatchObject({ status: 'Authorized', returnCode: '00', amount: 15000, installments: 3 });
    expect(body.authorizationCode).toMatch(/^[A-Z0-9]{6}$/);
    expect(body.nsu).toMatch(/^\d{18}$/);
    const [sale] = salesOf(body.paymentId);
    expect(sale).toMatchObject({ Amount: 15000, Installments: 3, Status: 2, Brand: 'Visa' });
    expect(salesOf(body.paymentId)).toHaveLength(1);
    expect((await stored(body.paymentId)).acquirer_reference).toBe(`cielo:${sale.PaymentId}`);
  });

  it("names each brand as Cielo does (Visa, Master, Amex, Elo, Hipercard)", async () => {
    const cards: [string, string][] = [
      [cardEndingIn(1, '5555'), 'Master'],
      [cardEndingIn(1, '3782'), 'Amex'],
      [cardEndingIn(1, '636297'), 'Elo'],
      [cardEndingIn(1, '606282'), 'Hipercard'],
    ];
    for (const [pan, brand] of cards) {
      const numberToken = await tokenize(t, m, pan, { securityCode: brand === 'Amex' ? '1234' : '123' });
      const res = await t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ numberToken }) });
      expect(res.statusCode, res.body).toBe(201);
      expect(salesOf(res.json().paymentId)[0].Brand).toBe(brand);
    }
  });

  const declines: [number, string, string][] = [
    [2, '05', 'Not authorized'],
    [3, '54', 'Expired card'],
    [5, '78', 'Card blocked'],
    [7, '46', 'Card cancelled'],
    [8, '14', 'Invalid card'],
  ];
  for (const [digit, code, message] of declines) {
    it(`maps the sandbox's final digit ${digit} to Denied ${code}`, async () => {
      const { status, body } = await pay(cardEndingIn(digit));
      expect(status).toBe(201);
      expect(body).toMatchObject({ status: 'Denied', returnCode: code, authorizationCode: null });
      expect(body.returnMessage).toContain(message);
      expect(body.returnMessage).toMatch(/Cielo Status 3, ReturnCode \d+/);
    });
  }

  it("maps Cielo's time-out (99) to an acquirer failure: 502, Denied 96, nothing charged", async () => {
    const { status, body } = await pay(cardEndingIn(6));
    expect(status).toBe(502);
    expect(body[0]).toMatchObject({ tag: 'acquirer_failure' });
    expect(body[0].description).toContain('nothing was charged');
    expect(await stored(paymentIdIn(body[0].description))).toMatchObject({ status: 'Denied', return_code: '96' });
  });

  it('maps ABECS codes forced at the stand-in (51, 41, 43)', async () => {
    for (const code of ['51', '41', '43']) {
      const pan = cardEndingIn(1, '4929');
      cielo.forceOutcome({ cardNumber: pan, returnCode: code, message: 'Not Authorized' });
      const { body } = await pay(pan);
      expect(body).toMatchObject({ status: 'Denied', returnCode: code });
      cielo.clearOutcomes();
    }
  });

  it('cancels with a void of the full amount; the sale reads Voided at Cielo', async () => {
    const { body } = await pay(cardEndingIn(1));
    const res = await t.inject({ method: 'POST', url: `${PAY}/${body.paymentId}/cancel`, headers: m.headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().status).toBe('Canceled');
    expect(salesOf(body.paymentId)[0]).toMatchObject({ Status: 10, VoidedAmount: 10000 });
    expect((await t.inject({ method: 'POST', url: `${PAY}/${body.paymentId}/cancel`, headers: m.headers })).statusCode).toBe(409);
  });

  it('a cancel whose answer is lost is 502 and may be sent again: the payment is Canceled once', async () => {
    const { body } = await pay(cardEndingIn(1));
    cielo.setFaults({ down: true });
    const lost = await t.inject({ method: 'POST', url: `${PAY}/${body.paymentId}/cancel`, headers: m.headers });
    expect(lost.statusCode).toBe(502);
    expect(lost.json()[0].tag).toBe('acquirer_unavailable');
    cielo.setFaults({ down: false });
    const again = await t.inject({ method: 'POST', url: `${PAY}/${body.paymentId}/cancel`, headers: m.headers });
    expect(again.json().status).toBe('Canceled');
  });

  const lostAnswers: [string, Parameters<CieloStandIn['setFaults']>[0]][] = [
    ['the connection dropped after the sale was recorded', { dropAfterRecord: 1 }],
    ['a 500 after the sale was recorded', { fail5xxAfterRecord: 1 }],
    ['no answer within the timeout', { hang: 1 }],
  ];
  for (const [what, faults] of lostAnswers) {
    it(`${what}: looked up at once, 201 Authorized, exactly one sale`, async () => {
      cielo.setFaults(faults);
      const { status, body } = await pay(cardEndingIn(1));
      expect(status, JSON.stringify(body)).toBe(201);
      expect(body.status).toBe('Authorized');
      expect(salesOf(body.paymentId)).toHaveLength(1);
      expect(cielo.stats().requests.sale).toBe(1);
    });
  }

  it('an acquirer down: 502, payment Pending, nothing charged; recovered later as Denied 96 with no sale', async () => {
    cielo.setFaults({ down: true });
    const { status, body } = await pay(cardEndingIn(1));
    expect(status).toBe(502);
    expect(body[0].tag).toBe('acquirer_unavailable');
    const paymentId = paymentIdIn(body[0].description);
    expect((await stored(paymentId)).status).toBe('Pending');
    cielo.setFaults({ down: false });
    // The recovery job waits out the settle window (2 x ACQUIRER_TIMEOUT_MS of wall time) before it believes "no record".
    await new Promise((resolve) => setTimeout(resolve, 2 * TIMEOUT_MS + 50));
    await clock(t).days(1);
    expect(await stored(paymentId)).toMatchObject({ status: 'Denied', return_code: '96' });
    expect(salesOf(paymentId)).toHaveLength(0);
  });

  it('a refused sale (503 before recording) is never read as a decline, and the recovery finds nothing charged', async () => {
    cielo.setFaults({ fail5xxBeforeRecord: 1 });
    const { status, body } = await pay(cardEndingIn(1));
    expect(status).toBe(502);
    const paymentId = paymentIdIn(body[0].description);
    expect((await stored(paymentId)).status).toBe('Pending');
    await new Promise((resolve) => setTimeout(resolve, 2 * TIMEOUT_MS + 50));
    await clock(t).days(1);
    expect((await stored(paymentId)).status).toBe('Denied');
    expect(salesOf(paymentId)).toHaveLength(0);
  });

  it("a merchant's own connection (operator API) is used for its payments, its key stored encrypted; bad credentials are a clear 502", async () => {
    const own = await t.merchant();
    await liftVelocity(t, own);
    const url = `/admin/merchants/${own.merchantId}/acquirer`;
    const bad = await t.inject({ method: 'PUT', url, headers: t.adminHeaders, payload: { provider: 'cielo', merchantId: STANDIN_MERCHANT_ID, merchantKey: 'WRONGKEY', apiUrl: cielo.apiUrl, queryUrl: cielo.queryUrl } });
    expect(bad.statusCode, bad.body).toBe(200);
    expect(bad.json()).toMatchObject({ provider: 'cielo', merchantKeyLast4: 'GKEY', environment: 'production' });
    expect(bad.body).not.toContain('WRONGKEY');
    const row = await t.ctx.database.db.selectFrom('acquirer_connections').selectAll().where('merchant_id', '=', own.merchantId).executeTakeFirstOrThrow();
    expect(row.merchant_key_sealed).not.toContain('WRONGKEY');
    const refused = await t.inject({ method: 'POST', url: PAY, headers: own.headers, payload: paymentBody({ numberToken: await tokenize(t, own, cardEndingIn(1)) }) });
    expect(refused.statusCode).toBe(502);
    expect(refused.json()[0]).toMatchObject({ tag: 'acquirer_failure' });
    expect(refused.json()[0].description).toContain('Cielo refused the sale');
    expect(cielo.sales()).toHaveLength(0);

    expect((await t.inject({ method: 'PUT', url, headers: t.adminHeaders, payload: { provider: 'cielo', merchantId: STANDIN_MERCHANT_ID, merchantKey: STANDIN_MERCHANT_KEY, apiUrl: cielo.apiUrl, queryUrl: cielo.queryUrl } })).statusCode).toBe(200);
    const ok = await t.inject({ method: 'POST', url: PAY, headers: own.headers, payload: paymentBody({ numberToken: await tokenize(t, own, cardEndingIn(3)) }) });
    // environment production (not inferred from a localhost URL): Cielo's 57 reads as ABECS 57.
    expect(ok.json()).toMatchObject({ status: 'Denied', returnCode: '57' });
    expect((await t.inject({ method: 'PUT', url, headers: t.adminHeaders, payload: { provider: 'cielo', merchantId: 'x', merchantKey: 'y', apiUrl: 'ftp://cielo' } })).json()[0].tag).toBe('apiUrl');
    expect((await t.inject({ method: 'DELETE', url, headers: t.adminHeaders })).statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url, headers: t.adminHeaders })).statusCode).toBe(404);
  });

  it('a connection refused (nothing listening) is Denied 96 at once: 502, nothing sent, no lookup', async () => {
    const own = await t.merchant();
    await t.inject({ method: 'PUT', url: `/admin/merchants/${own.merchantId}/acquirer`, headers: t.adminHeaders, payload: { provider: 'cielo', merchantId: 'm', merchantKey: 'k', apiUrl: 'http://127.0.0.1:9', queryUrl: 'http://127.0.0.1:9' } });
    const res = await t.inject({ method: 'POST', url: PAY, headers: own.headers, payload: paymentBody({ numberToken: await tokenize(t, own, cardEndingIn(1)) }) });
    expect(res.statusCode).toBe(502);
    expect(res.json()[0].description).toContain('could not be reached');
  });

  describe('recurrence driven by Cielo codes', () => {
    it('51 is retried and then Paid; a cancelled card (sandbox 77) blocks the subscription', async () => {
      // A merchant of its own, so its billings are this test's only ones.
      const owner = await t.merchant();
      await liftVelocity(t, owner);
      const api = recurrence(t, owner);
      const retryPan = cardEndingIn(1, '4716');
      const vaultId = await vault(t, owner, retryPan);
      const plan = await api.plan({ attempts: 2 });
      cielo.forceOutcome({ cardNumber: retryPan, next: 1, returnCode: '51', message: 'Not Authorized' });
      const subscriptionId = await api.subscribe(plan, vaultId);
      await clock(t).runDue();
      let [billing] = await api.billings();
      expect(billing.status).toBe('Opened');
      expect((await api.subscription(subscriptionId)).status).toBe('Active');
      await clock(t).days(2);
      billing = await api.billing(billing.id);
      expect(billing.status).toBe('Paid');
      expect(billing.attemptsHistory.map((a: { returnCode: string }) => a.returnCode)).toEqual(['51', '00']);

      const blockedVault = await vault(t, owner, cardEndingIn(7, '4716'));
      const blockedSub = await api.subscribe(plan, blockedVault, 'ORD-2');
      await clock(t).runDue();
      expect((await api.subscription(blockedSub)).status).toBe('Blocked');
    });
  });
});
