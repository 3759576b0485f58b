import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VirtualClock } from '../../src/clock.js';
import { CHECKOUT_LIMITS } from '../../src/modules/paymentlinks/checkout/payments.js';
import { paymentBody, tokenize } from '../support/cards.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { checkoutBody, createLink, information, payLink } from './support.js';
import type { PaymentStatus } from '../../src/domain/lifecycles.js';

/** POST /pay/{id}/payments: what the checkout page calls (the browser itself is in checkout-browser.test.ts). */
describe(`checkout payments (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let ipCounter = 0;
  /** A fresh client address per attempt, so the per-IP limit stays out of tests about other things. */
  const ip = () => `198.51.100.${++ipCounter % 250}`;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
  });
  afterAll(() => t.close());

  const pay = (id: string, number: string, extra: Record<string, unknown> = {}) => payLink(t, id, number, extra, ip());
  const getPayment = async (paymentId: string) => (await t.inject({ method: 'GET', url: `/gateway/v1/payments/${paymentId}`, headers: m.headers })).json();
  const hold = (id: string, claimedUntil: Date) =>
    t.ctx.database.db.updateTable('payment_links').set({ claim_id: randomUUID(), claimed_until: claimedUntil.toISOString() }).where('id', '=', id).execute();

  it('pays a link through the payment service: link Pago with the payment fields, payment like any other', async () => {
    const link = await createLink(t, m, { value: 100, qttyInstallments: 1 });
    const res = await pay(link.id, '4111111111111111', { email: 'maria@example.com', documentNumber: '52998224725' });
    expect(res.statusCode).toBe(201);
    const result = res.json();
    expect(result).toEqual({
      paid: true,
      paymentId: expect.any(String),
      status: 'Authorized',
      returnCode: '00',
      message: expect.stringContaining('Pagamento aprovado'),
      authorizationCode: expect.stringMatching(/^[A-Z0-9]{6}$/),
      maskedCardNumber: '411111******1111',
      installments: 1,
      amount: 100,
      linkStatus: 2,
      linkStatusFormat: 'Pago',
    });

    const info = await information(t, m, link.id);
    expect(info).toMatchObject({
      status: 2,
      statusFormat: 'Pago',
      paymentDate: expect.any(String),
      paymentValue: 100,
      paymentQttyInstallments: 1,
      paymentAuthorizationCode: result.authorizationCode,
      paymentResultId: result.paymentId,
    });
    expect(info.history.at(-1)).toMatchObject({ status: 2, statusFormat: 'Pago', historyDate: info.paymentDate, reason: expect.stringContaining(`autorização ${result.authorizationCode}`) });

    const payment = await getPayment(result.paymentId);
    expect(payment).toMatchObject({ status: 'Authorized', amount: 10000, installments: 1, productType: 'avista', referenceTransaction: `paymentlink:${link.id}`, antiFraud: { decision: 'Accept' } });
    const stored = await t.ctx.database.db.selectFrom('payments').selectAll().where('payment_id', '=', result.paymentId).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ card_source: 'encrypted', customer_document: '52998224725', customer_email: 'maria@example.com', customer_ip: expect.any(String) });
    expect(stored.code_anti_fraud).toMatch(/^[0-9a-f-]{36}$/);
    const events = await t.ctx.database.db.selectFrom('payment_events').select(['old_status', 'new_status']).where('payment_id', '=', result.paymentId).execute();
    expect(events).toEqual([{ old_status: '', new_status: 'Authorized' }]);
    // Conciliation: one receivable per installment, like any card payment.
    const receivables = await t.ctx.database.db.selectFrom('receivables').select('installment_number').where('source_id', '=', result.paymentId).execute();
    expect(receivables).toHaveLength(1);

    const again = await pay(link.id, '5555555555554444');
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual([{ tag: 'link_paid', description: 'This payment link has already been paid.' }]);
    expect(await t.ctx.database.db.selectFrom('jobs').select('id').where('dedupe_key', '=', `paymentlink.expire:${link.id}`).where('status', '=', 'pending').execute()).toEqual([]);
  });

  it('charges the Price-table total beyond the interest-free count (R$ 100 at 2.99 % a month in 3x = R$ 106.05)', async () => {
    const link = await createLink(t, m, { value: 100, qttyInstallments: 6, qttyInstallmentsIntFree: 2, installmentsFee: 2.99 });
    const free = await createLink(t, m, { value: 100, qttyInstallments: 6, qttyInstallmentsIntFree: 3, installmentsFee: 2.99 });
    const paid = (await pay(link.id, '4111111111111111', { installments: 3 })).json();
    expect(paid).toMatchObject({ paid: true, installments: 3, amount: 106.05 });
    expect(await getPayment(paid.paymentId)).toMatchObject({ amount: 10605, installments: 3, productType: 'lojista' });
    expect(await information(t, m, link.id)).toMatchObject({ paymentValue: 106.05, paymentQttyInstallments: 3 });
    const receivables = await t.ctx.database.db.selectFrom('receivables').select('installment_number').where('source_id', '=', paid.paymentId).execute();
    expect(receivables).toHaveLength(3);

    expect((await pay(free.id, '4111111111111111', { installments: 3 })).json()).toMatchObject({ paid: true, amount: 100 });
  });

  it('a decline leaves the link open and free for another attempt', async () => {
    const link = await createLink(t, m, { value: 50 });
    const res = await pay(link.id, '4000000000000002');
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ paid: false, status: 'Denied', returnCode: '05', message: expect.stringContaining('não autorizado'), linkStatus: 1, linkStatusFormat: 'Em Aberto' });
    const info = await information(t, m, link.id);
    expect(info).toMatchObject({ status: 1, paymentResultId: null });
    expect(info.history).toHaveLength(1);
    expect((await pay(link.id, '4111111111111111')).json()).toMatchObject({ paid: true });
  });

  it('goes through anti-fraud: a rejected payer is declined (59), a reviewed one pays (Blocked)', async () => {
    const link = await createLink(t, m);
    const rejected = (await pay(link.id, '4111111111111111', { email: 'fraude@reject.test' })).json();
    expect(rejected).toMatchObject({ paid: false, status: 'Denied', returnCode: '59' });
    expect((await information(t, m, link.id)).status).toBe(1);

    const reviewed = (await pay(link.id, '4111111111111111', { email: 'talvez@review.test' })).json();
    expect(reviewed).toMatchObject({ paid: true, status: 'Blocked', message: expect.stringContaining('análise') });
    const info = await information(t, m, link.id);
    expect(info.status).toBe(2);
    expect(info.history.at(-1).reason).toContain('Em análise antifraude');
  });

  it('refuses input the link does not allow (400) and gives the link back', async () => {
    const link = await createLink(t, m, { qttyInstallments: undefined, qttyInstallmentsCustom: [1, 3] });
    const cases: [Record<string, unknown>, string][] = [
      [{ installments: 2 }, 'installments'],
      [{ installments: 13 }, 'installments'],
      [{ documentNumber: '12345678900' }, 'documentNumber'],
      [{ email: 'not-an-email' }, 'email'],
      [{ cardholderName: 'X'.repeat(31) }, 'cardholderName'],
      [{ encryptedCard: 'bm90IGEgY2FyZA==' }, 'cardInfo.encryptedCard'],
    ];
    for (const [extra, tag] of cases) {
      const res = await pay(link.id, '4111111111111111', extra);
      expect(res.statusCode, tag).toBe(400);
      expect(res.json()[0].tag, JSON.stringify(extra)).toBe(tag);
    }
    // A card the gateway refuses after decryption: expired.
    const { encryptCard } = await import('../support/cards.js');
    const expired = await encryptCard(t, { number: '4111111111111111', expirationMonth: '01', expirationYear: '2020', securityCode: '123' });
    const res = await t.inject({ method: 'POST', url: `/pay/${link.id}/payments`, payload: { encryptedCard: expired, cardholderName: 'MARIA', installments: 1 }, remoteAddress: ip() });
    expect(res.statusCode).toBe(400);
    expect(res.json()[0].tag).toBe('cardInfo.expirationMonth');
    expect((await pay(link.id, '4111111111111111', { installments: 3 })).json()).toMatchObject({ paid: true });
  });

  it('never takes a card in clear: the body has no place for one', async () => {
    const link = await createLink(t, m);
    const res = await t.inject({
      method: 'POST',
      url: `/pay/${link.id}/payments`,
      payload: { cardNumber: '4111111111111111', expirationMonth: '12', expirationYear: '2035', cardholderName: 'MARIA', installments: 1 },
      remoteAddress: ip(),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([{ tag: 'encryptedCard', description: 'encryptedCard is required.' }]);
    expect(t.logs.text).not.toContain('4111111111111111');
  });

  it('an acquirer failure (96) is 502 with nothing charged, and the link stays payable', async () => {
    const link = await createLink(t, m);
    const res = await pay(link.id, '4000000000000119');
    expect(res.statusCode).toBe(502);
    expect(res.json()[0].tag).toBe('acquirer_failure');
    expect((await pay(link.id, '4111111111111111')).json()).toMatchObject({ paid: true });
  });

  it('answers 404 for an unknown link and 400 for a malformed id', async () => {
    expect((await pay(randomUUID(), '4111111111111111')).statusCode).toBe(404);
    const malformed = await t.inject({ method: 'POST', url: '/pay/abc/payments', payload: await checkoutBody(t, '4111111111111111'), remoteAddress: ip() });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()[0].tag).toBe('path.id');
  });

  describe('paid once', () => {
    it('of two payers at the same moment, one pays and the other is told (409)', async () => {
      const link = await createLink(t, m);
      const [a, b] = await Promise.all([pay(link.id, '4111111111111111'), pay(link.id, '5555555555554444')]);
      const answers = [a, b].map((r) => [r.statusCode, r.statusCode === 201 ? r.json().paid : r.json()[0].tag]);
      expect(answers).toContainEqual([201, true]);
      expect(answers.filter(([status]) => status === 409)).toHaveLength(1);
      expect(['payment_in_progress', 'link_paid']).toContain(answers.find(([status]) => status === 409)![1]);
      const payments = await t.ctx.database.db.selectFrom('payments').select('status').where('reference_transaction', '=', `paymentlink:${link.id}`).execute();
      expect(payments).toEqual([{ status: 'Authorized' }]);
    });

    it('a link held by a payment in progress cannot be paid or deactivated (409 payment_in_progress)', async () => {
      const link = await createLink(t, m);
      await hold(link.id, new Date(Date.now() + 60_000));
      const res = await pay(link.id, '4111111111111111');
      expect(res.statusCode).toBe(409);
      expect(res.json()[0].tag).toBe('payment_in_progress');
      const deactivate = await t.inject({ method: 'POST', url: `/gateway/v1/paymentlink/${link.id}/deactivate`, headers: m.headers });
      expect(deactivate.statusCode).toBe(409);
      expect(deactivate.json()[0].tag).toBe('payment_in_progress');
    });

    it('a hold left by a crashed attempt is settled from the link\'s payments: charged means paid', async () => {
      const link = await createLink(t, m, { value: 100 });
      // The crashed attempt got as far as an authorized payment; its answer never reached the link.
      const numberToken = await tokenize(t, m, '4111111111111111');
      const charged = await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: paymentBody({ numberToken }, { referenceTransaction: `paymentlink:${link.id}` }) });
      expect(charged.json().status).toBe('Authorized');
      await hold(link.id, new Date(Date.now() - 1000));
      const info = await information(t, m, link.id);
      expect(info).toMatchObject({ status: 2, paymentResultId: charged.json().paymentId, paymentValue: 100 });
    });

    it('a stale hold with nothing charged is released, and an earlier authorized payment is found before charging again', async () => {
      const stale = await createLink(t, m);
      await hold(stale.id, new Date(Date.now() - 1000));
      expect((await information(t, m, stale.id)).status).toBe(1);
      expect((await pay(stale.id, '4111111111111111')).json()).toMatchObject({ paid: true });

      // A payment of the link exists but the link was never held (e.g. released by mistake): no second charge.
      const link = await createLink(t, m, { value: 100 });
      const numberToken = await tokenize(t, m, '4111111111111111');
      await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: paymentBody({ numberToken }, { referenceTransaction: `paymentlink:${link.id}` }) });
      const res = await pay(link.id, '5555555555554444');
      expect(res.statusCode).toBe(409);
      expect(res.json()[0].tag).toBe('link_paid');
      const payments = await t.ctx.database.db.selectFrom('payments').select('status').where('reference_transaction', '=', `paymentlink:${link.id}`).execute();
      expect(payments).toHaveLength(1);
    });
  });

  describe('a payment still waiting for the acquirer', () => {
    it('keeps the link held: it neither expires nor is deactivated under it, and becomes Pago when the payment is authorized', async () => {
      const link = await createLink(t, m, { value: 100, expirationDate: new Date(t.ctx.clock.now().getTime() + 3_600_000).toISOString() });
      const numberToken = await tokenize(t, m, '4111111111111111');
      const charged = (await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: paymentBody({ numberToken }, { referenceTransaction: `paymentlink:${link.id}` }) })).json();
      // As if the attempt crashed while the acquirer had not answered yet.
      const setPayment = (status: PaymentStatus) => t.ctx.database.db.updateTable('payments').set({ status }).where('payment_id', '=', charged.paymentId).execute();
      await setPayment('Pending');
      await hold(link.id, new Date(Date.now() - 1000));
      (t.ctx.clock as VirtualClock).moveTo(new Date(Date.parse(link.expirationDate) + 60_000));

      expect((await information(t, m, link.id)).status).toBe(1);
      const deactivate = await t.inject({ method: 'POST', url: `/gateway/v1/paymentlink/${link.id}/deactivate`, headers: m.headers });
      expect(deactivate.json()[0].tag).toBe('payment_in_progress');
      const retry = await pay(link.id, '5555555555554444');
      expect(retry.statusCode).toBe(409);
      expect(retry.json()[0].tag).toBe('payment_in_progress');

      await setPayment('Authorized');
      await hold(link.id, new Date(Date.now() - 1000));
      expect(await information(t, m, link.id)).toMatchObject({ status: 2, paymentResultId: charged.paymentId });
    });
  });

  describe('rate limits (always on)', () => {
    it(`allows ${CHECKOUT_LIMITS.perLink.max} attempts per link per window, then 429 with Retry-After and the error array`, async () => {
      const link = await createLink(t, m);
      for (let i = 0; i < CHECKOUT_LIMITS.perLink.max; i++) {
        const res = await t.inject({ method: 'POST', url: `/pay/${link.id}/payments`, payload: {}, remoteAddress: ip() });
        expect(res.statusCode).toBe(400);
      }
      const limited = await pay(link.id, '4111111111111111');
      expect(limited.statusCode).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(CHECKOUT_LIMITS.perLink.windowMs / 1000);
      expect(limited.json()).toEqual([{ tag: 'rate_limited', description: expect.stringContaining('Too many payment attempts') }]);
      expect((await information(t, m, link.id)).status).toBe(1);

      // When the window has passed (wall clock, not the sandbox clock), the link may be paid.
      await t.ctx.database.db.updateTable('rate_limit_windows').set({ window_ends_at: new Date(Date.now() - 1).toISOString() }).execute();
      expect((await pay(link.id, '4111111111111111')).json()).toMatchObject({ paid: true });
    });

    it(`allows ${CHECKOUT_LIMITS.perIp.max} attempts per IP per window, across links`, async () => {
      const address = '192.0.2.77';
      for (let i = 0; i < CHECKOUT_LIMITS.perIp.max; i++) {
        const res = await t.inject({ method: 'POST', url: `/pay/${randomUUID()}/payments`, payload: {}, remoteAddress: address });
        expect(res.statusCode).toBe(400);
      }
      const link = await createLink(t, m);
      const limited = await payLink(t, link.id, '4111111111111111', {}, address);
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['retry-after']).toBeDefined();
      expect((await payLink(t, link.id, '4111111111111111', {}, '192.0.2.78')).json()).toMatchObject({ paid: true });
    });
  });
});
