import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { encryptCard, GUID, paymentBody, tokenize, vault } from '../support/cards.js';

const PAY = '/gateway/v1/payments';

describe(`card payments (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    // These tests reuse a few test cards many times: lift the velocity limits for this merchant
    // (the defaults are exercised below and in test/antifraud).
    const lifted = await t.inject({
      method: 'PUT',
      url: `/admin/merchants/${m.merchantId}/antifraud`,
      headers: t.adminHeaders,
      payload: { velocity: { maxPerCard: 100000, maxPerDocument: 100000, maxPerIp: 100000 } },
    });
    expect(lifted.statusCode).toBe(200);
  });
  afterAll(() => t.close());

  const pay = (payload: object, headers: Record<string, string> = m.headers) => t.inject({ method: 'POST', url: PAY, headers, payload });
  const events = (paymentId: string) =>
    t.ctx.database.db.selectFrom('payment_events').select(['old_status', 'new_status']).where('payment_id', '=', paymentId).orderBy('id').execute();

  describe('sandbox acquirer outcomes', () => {
    const cases: [string, string, string][] = [
      ['4111111111111111', 'Authorized', '00'],
      ['5555555555554444', 'Authorized', '00'],
      ['378282246310005', 'Authorized', '00'],
      ['6362970000457013', 'Authorized', '00'],
      ['6062825624254001', 'Authorized', '00'],
      ['4000000000009995', 'Denied', '51'],
      ['4000000000000002', 'Denied', '05'],
      ['4000000000000069', 'Denied', '54'],
      ['4000000000009987', 'Denied', '46'],
    ];
    for (const [pan, status, code] of cases) {
      it(`${pan.slice(0, 6)}...${pan.slice(-4)} -> ${status} ${code}`, async () => {
        const numberToken = await tokenize(t, m, pan);
        const before = t.ctx.clock.now().getTime();
        const wallBefore = t.ctx.clock.wallNow().getTime();
        const res = await pay(paymentBody({ numberToken }));
        const after = t.ctx.clock.now().getTime();
        const wallAfter = t.ctx.clock.wallNow().getTime();
        expect(res.statusCode).toBe(201);
        const body = res.json();
        // A version 7 UUID stamped with the (sandbox) clock's time: new payments land at the end of the id's indexes.
        expect(body.paymentId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        const stamped = parseInt(body.paymentId.slice(0, 8) + body.paymentId.slice(9, 13), 16);
        expect(stamped).toBeGreaterThanOrEqual(before);
        expect(stamped).toBeLessThanOrEqual(after);
        expect(body).toMatchObject({ status, returnCode: code, amount: 10000, installments: 1, productType: 'avista', referenceTransaction: 'order-1' });
        expect(body.maskedCardNumber).toBe(`${pan.slice(0, 6)}${'*'.repeat(pan.length - 10)}${pan.slice(-4)}`);
        expect(body.paymentId).toMatch(/^[0-9a-f-]{36}$/);
        // A sequential NSU: the wall clock's milliseconds, then 12 random digits (acquirer/sandbox/nsu.ts).
        expect(body.nsu).toMatch(/^\d{25}$/);
        expect(Number(body.nsu.slice(0, 13))).toBeGreaterThanOrEqual(wallBefore);
        expect(Number(body.nsu.slice(0, 13))).toBeLessThanOrEqual(wallAfter);
        if (status === 'Authorized') expect(body.authorizationCode).toMatch(/^[A-Z0-9]{6}$/);
        else expect(body.authorizationCode).toBeNull();
        expect(body.antiFraud).toEqual({ decision: 'Accept', score: expect.any(Number) });
        expect(await events(body.paymentId)).toEqual([{ old_status: '', new_status: status }]);
      });
    }

    it('answers an acquirer failure (96) with 502 and the error array; nothing is charged', async () => {
      const numberToken = await tokenize(t, m, '4000000000000119');
      const res = await pay(paymentBody({ numberToken }));
      expect(res.statusCode).toBe(502);
      expect(res.json()).toEqual([{ tag: 'acquirer_failure', description: expect.stringContaining('nothing was charged') }]);
      const paymentId = /payment ([0-9a-f-]{36})/.exec(res.json()[0].description)![1];
      const got = await t.inject({ method: 'GET', url: `${PAY}/${paymentId}`, headers: m.headers });
      expect(got.json()).toMatchObject({ status: 'Denied', returnCode: '96', authorizationCode: null, nsu: null });
    });
  });

  describe('card sources', () => {
    it('pays with an encryptedCard', async () => {
      const encryptedCard = await encryptCard(t, { number: '5555555555554444', expirationMonth: '11', expirationYear: '2034', securityCode: '123' });
      const res = await pay(paymentBody({ encryptedCard, brand: 'mastercard' }));
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ status: 'Authorized', brand: 'mastercard', maskedCardNumber: '555555******4444' });
    });

    it('answers a bad encryptedCard with 400 on its tag', async () => {
      const res = await pay(paymentBody({ encryptedCard: 'bm90IGEgY2FyZA==' }));
      expect(res.statusCode).toBe(400);
      expect(res.json()[0].tag).toBe('cardInfo.encryptedCard');
    });

    it('pays with a vaulted card, many times', async () => {
      const vaultId = await vault(t, m, '4111111111111111');
      for (let i = 0; i < 2; i++) {
        const res = await pay(paymentBody({ vaultId }));
        expect(res.statusCode).toBe(201);
        expect(res.json().status).toBe('Authorized');
      }
    });

    it('consumes a numberToken: a second payment with it is refused', async () => {
      const numberToken = await tokenize(t, m, '4111111111111111');
      expect((await pay(paymentBody({ numberToken }))).statusCode).toBe(201);
      const again = await pay(paymentBody({ numberToken }));
      expect(again.statusCode).toBe(400);
      expect(again.json()[0].tag).toBe('cardInfo.numberToken');
    });

    it('does not consume a numberToken when the payment is refused by validation', async () => {
      const numberToken = await tokenize(t, m, '4111111111111111');
      const bad = await pay(paymentBody({ numberToken, brand: 'mastercard' }));
      expect(bad.statusCode).toBe(400);
      expect(bad.json()[0].tag).toBe('cardInfo.brand');
      expect((await pay(paymentBody({ numberToken }))).statusCode).toBe(201);
    });

    it("answers another merchant's numberToken and vaultId with 404, without consuming the token", async () => {
      const other = await t.merchant();
      const numberToken = await tokenize(t, other, '4111111111111111');
      const vaultId = await vault(t, other, '4111111111111111');
      expect((await pay(paymentBody({ numberToken }))).statusCode).toBe(404);
      expect((await pay(paymentBody({ vaultId }))).statusCode).toBe(404);
      expect((await pay(paymentBody({ numberToken }), other.headers)).statusCode).toBe(201);
    });

    it('requires exactly one card source', async () => {
      const numberToken = await tokenize(t, m, '4111111111111111');
      const vaultId = await vault(t, m, '4111111111111111');
      for (const cardInfo of [{}, { numberToken, vaultId }]) {
        const res = await pay(paymentBody(cardInfo));
        expect(res.statusCode).toBe(400);
        expect(res.json().map((e: { tag: string }) => e.tag)).toContain('cardInfo');
      }
    });

    it('checks the securityCode length against the brand', async () => {
      const vaultId = await vault(t, m, '378282246310005');
      const bad = await pay(paymentBody({ vaultId, securityCode: '123' }));
      expect(bad.statusCode).toBe(400);
      expect(bad.json()[0].tag).toBe('cardInfo.securityCode');
      expect((await pay(paymentBody({ vaultId, securityCode: '1234' }))).statusCode).toBe(201);
    });
  });

  describe('field rules (one failing body each)', () => {
    let vaultId: string;
    beforeAll(async () => {
      vaultId = await vault(t, m, '4111111111111111');
    });
    const base = (): any => paymentBody({ vaultId: '' });
    const cases: [string, (b: any) => void, string][] = [
      ['transactionType must be credit', (b) => (b.payment.transactionType = 'debit'), 'payment.transactionType'],
      ['amount >= 1', (b) => (b.payment.amount = 0), 'payment.amount'],
      ['amount is an integer', (b) => (b.payment.amount = 10.5), 'payment.amount'],
      ['amount has at most 10 digits', (b) => (b.payment.amount = 10_000_000_000), 'payment.amount'],
      ['amount is not a string', (b) => (b.payment.amount = '100'), 'payment.amount'],
      ['installments 1..12', (b) => (b.payment.installments = 13), 'payment.installments'],
      ['installments >= 1', (b) => (b.payment.installments = 0), 'payment.installments'],
      ['productType enum', (b) => (b.payment.productType = 'parcelado'), 'payment.productType'],
      ['avista only with 1 installment', (b) => (b.payment.installments = 3), 'payment.productType'],
      ['lojista only with 2+ installments', (b) => (b.payment.productType = 'lojista'), 'payment.productType'],
      ['codeAntiFraud is a GUID', (b) => (b.sellerInfo.codeAntiFraud = 'not-a-guid'), 'sellerInfo.codeAntiFraud'],
      ['codeAntiFraud is required', (b) => delete b.sellerInfo.codeAntiFraud, 'sellerInfo.codeAntiFraud'],
      ['cardholderName is required', (b) => delete b.cardInfo.cardholderName, 'cardInfo.cardholderName'],
      ['cardholderName <= 30', (b) => (b.cardInfo.cardholderName = 'X'.repeat(31)), 'cardInfo.cardholderName'],
      ['brand enum', (b) => (b.cardInfo.brand = 'diners'), 'cardInfo.brand'],
      ['securityCode <= 4 digits', (b) => (b.cardInfo.securityCode = '12345'), 'cardInfo.securityCode'],
      ['expirationMonth 2 digits', (b) => (b.cardInfo.expirationMonth = '1'), 'cardInfo.expirationMonth'],
      ['encryptedCard <= 2048', (b) => ((b.cardInfo.encryptedCard = 'A'.repeat(2049)), delete b.cardInfo.vaultId), 'cardInfo.encryptedCard'],
      ['referenceTransaction <= 50', (b) => (b.referenceTransaction = 'r'.repeat(51)), 'referenceTransaction'],
      ['urlCallBack <= 500', (b) => (b.urlCallBack = `https://x.test/${'a'.repeat(500)}`), 'urlCallBack'],
      ['urlCallBack is an http(s) URL', (b) => (b.urlCallBack = 'ftp://x.test/cb'), 'urlCallBack'],
      ['split percent <= 100', (b) => (b.configSplit = [{ documentNumberBeneficiary: '52998224725', percent: 100.5, type: 'bruto' }]), 'configSplit[0].percent'],
      ['split percent >= 0', (b) => (b.configSplit = [{ documentNumberBeneficiary: '52998224725', percent: -1, type: 'bruto' }]), 'configSplit[0].percent'],
      ['split percent 2 decimals', (b) => (b.configSplit = [{ documentNumberBeneficiary: '52998224725', percent: 10.123, type: 'bruto' }]), 'configSplit[0].percent'],
      ['split percents sum <= 100', (b) => (b.configSplit = [{ documentNumberBeneficiary: '52998224725', percent: 60, type: 'bruto' }, { documentNumberBeneficiary: '11222333000181', percent: 40.01, type: 'liquido' }]), 'configSplit'],
      ['split beneficiary CPF/CNPJ', (b) => (b.configSplit = [{ documentNumberBeneficiary: '12345678901', percent: 10, type: 'bruto' }]), 'configSplit[0].documentNumberBeneficiary'],
      ['split beneficiary <= 14', (b) => (b.configSplit = [{ documentNumberBeneficiary: '112223330001811', percent: 10, type: 'bruto' }]), 'configSplit[0].documentNumberBeneficiary'],
      ['split type enum', (b) => (b.configSplit = [{ documentNumberBeneficiary: '52998224725', percent: 10, type: 'net' }]), 'configSplit[0].type'],
      ['customer.documentType enum', (b) => (b.customer.documentType = 'rg'), 'customer.documentType'],
      ['customer.documentNumber valid', (b) => (b.customer.documentNumber = '52998224726'), 'customer.documentNumber'],
      ['customer.documentType agrees', (b) => (b.customer.documentType = 'cnpj'), 'customer.documentType'],
      ['customer.email format', (b) => (b.customer.email = 'nope'), 'customer.email'],
      ['customer.firstName <= 60', (b) => (b.customer.firstName = 'n'.repeat(61)), 'customer.firstName'],
      ['customer.phoneNumber <= 15', (b) => (b.customer.phoneNumber = '1'.repeat(16)), 'customer.phoneNumber'],
      ['customer.mobilePhoneNumber <= 25', (b) => (b.customer.mobilePhoneNumber = '1'.repeat(26)), 'customer.mobilePhoneNumber'],
      ['customer.city <= 50', (b) => (b.customer.city = 'c'.repeat(51)), 'customer.city'],
      ['customer.state <= 2', (b) => (b.customer.state = 'SPX'), 'customer.state'],
      ['customer.zipCode <= 10', (b) => (b.customer.zipCode = '1'.repeat(11)), 'customer.zipCode'],
      ['customer.ipAddress is an IP', (b) => (b.customer.ipAddress = '999.1.1.1'), 'customer.ipAddress'],
      ['customer.country 2 letters', (b) => (b.customer.country = 'BRA'), 'customer.country'],
      ['payment is required', (b) => delete b.payment, 'payment'],
    ];
    for (const [rule, mutate, tag] of cases) {
      it(`${rule} -> 400 ${tag}`, async () => {
        const body = base();
        body.cardInfo.vaultId = vaultId;
        mutate(body);
        const res = await pay(body);
        expect(res.statusCode).toBe(400);
        expect(res.json().map((e: { tag: string }) => e.tag)).toContain(tag);
      });
    }

    it('accepts the boundaries: 12 installments lojista, 100 % split in two, alphanumeric CNPJ beneficiary', async () => {
      const body = paymentBody(
        { vaultId },
        { configSplit: [{ documentNumberBeneficiary: '12ABC34501DE35', percent: 33.33, type: 'bruto' }, { documentNumberBeneficiary: '52998224725', percent: 66.67, type: 'liquido' }] },
      );
      body.payment = { transactionType: 'credit', amount: 9_999_999_999, productType: 'lojista', installments: 12 };
      const res = await pay(body);
      expect(res.statusCode).toBe(201);
      expect(res.json().splits).toEqual([
        { documentNumberBeneficiary: '12ABC34501DE35', type: 'bruto', percent: 33.33, amount: 3_333_000_000 },
        // liquido: 66.67 % of the net after 3.99 % MDR and R$ 0.25 of fees
        { documentNumberBeneficiary: '52998224725', type: 'liquido', percent: 66.67, amount: 6_400_986_683 },
      ]);
    });

    it("computes a liquido share with the merchant's own pricing", async () => {
      const priced = await t.merchant();
      const put = await t.inject({ method: 'PUT', url: `/admin/merchants/${priced.merchantId}/pricing`, headers: t.adminHeaders, payload: { mdr: { credit1x: 5 } } });
      expect(put.statusCode).toBe(200);
      const body = paymentBody({ vaultId: await vault(t, priced, '4111111111111111') }, { configSplit: [{ documentNumberBeneficiary: '52998224725', percent: 50, type: 'liquido' }] });
      const res = await pay(body, priced.headers);
      // R$ 100.00 - 5 % MDR (5.00) - R$ 0.25 of fees = 94.75; half of it = 47.375 -> 47.38
      expect(res.json().splits).toEqual([{ documentNumberBeneficiary: '52998224725', type: 'liquido', percent: 50, amount: 4738 }]);
    });

    it('ignores unknown body fields', async () => {
      const res = await pay({ ...paymentBody({ vaultId }), somethingElse: { a: 1 } });
      expect(res.statusCode).toBe(201);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the payment for the same key and body, charging once', async () => {
      const acquirer = t.ctx.acquirer.sandbox;
      const vaultId = await vault(t, m, '4111111111111111');
      const headers = { ...m.headers, 'idempotency-key': 'order-42' };
      const calls = acquirer.authorizeCalls;
      const first = await pay(paymentBody({ vaultId }), headers);
      const second = await pay(paymentBody({ vaultId }), headers);
      expect(first.statusCode).toBe(201);
      expect(second.statusCode).toBe(201);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.json()).toEqual(first.json());
      expect(acquirer.authorizeCalls - calls).toBe(1);
      const conflicting = await pay(paymentBody({ vaultId }, { referenceTransaction: 'other' }), headers);
      expect(conflicting.statusCode).toBe(409);
      expect(conflicting.json()[0].tag).toBe('idempotency_key_reused');
    });
  });

  describe('get and cancel', () => {
    it("gets a payment; another merchant's is 404", async () => {
      const vaultId = await vault(t, m, '4111111111111111');
      const created = (await pay(paymentBody({ vaultId }))).json();
      const got = await t.inject({ method: 'GET', url: `${PAY}/${created.paymentId}`, headers: m.headers });
      expect(got.statusCode).toBe(200);
      expect(got.json()).toEqual(created);
      const other = await t.merchant();
      expect((await t.inject({ method: 'GET', url: `${PAY}/${created.paymentId}`, headers: other.headers })).statusCode).toBe(404);
      expect((await t.inject({ method: 'GET', url: `${PAY}/00000000-0000-0000-0000-000000000000`, headers: m.headers })).statusCode).toBe(404);
    });

    it('cancels an Authorized payment once; the second cancel is 409', async () => {
      const vaultId = await vault(t, m, '4111111111111111');
      const created = (await pay(paymentBody({ vaultId }))).json();
      const cancel = () => t.inject({ method: 'POST', url: `${PAY}/${created.paymentId}/cancel`, headers: m.headers });
      const first = await cancel();
      expect(first.statusCode).toBe(200);
      expect(first.json().status).toBe('Canceled');
      const second = await cancel();
      expect(second.statusCode).toBe(409);
      expect(second.json()[0].tag).toBe('invalid_state');
      expect(await events(created.paymentId)).toEqual([
        { old_status: '', new_status: 'Authorized' },
        { old_status: 'Authorized', new_status: 'Canceled' },
      ]);
    });

    it('refuses to cancel a Denied payment (409), and a foreign one (404)', async () => {
      const denied = (await pay(paymentBody({ numberToken: await tokenize(t, m, '4000000000000002') }))).json();
      expect((await t.inject({ method: 'POST', url: `${PAY}/${denied.paymentId}/cancel`, headers: m.headers })).statusCode).toBe(409);
      const other = await t.merchant();
      const mine = (await pay(paymentBody({ vaultId: await vault(t, m, '4111111111111111') }))).json();
      expect((await t.inject({ method: 'POST', url: `${PAY}/${mine.paymentId}/cancel`, headers: other.headers })).statusCode).toBe(404);
    });

    it('requires the payments scope', async () => {
      const recurrenceOnly = await t.merchant({ scopes: ['recurrence'] });
      expect((await pay(paymentBody({ vaultId: 'x' }), recurrenceOnly.headers)).statusCode).toBe(403);
      expect((await pay(paymentBody({ vaultId: 'x' }), {})).statusCode).toBe(401);
    });
  });

  describe('anti-fraud', () => {
    it('Reject (sandbox @reject.test): Denied 59, never sent to the acquirer', async () => {
      const acquirer = t.ctx.acquirer.sandbox;
      const vaultId = await vault(t, m, '4111111111111111');
      const calls = acquirer.authorizeCalls;
      const body = paymentBody({ vaultId });
      body.customer.email = 'fraudster@reject.test';
      const res = await pay(body);
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ status: 'Denied', returnCode: '59', antiFraud: { decision: 'Reject' } });
      expect(acquirer.authorizeCalls).toBe(calls);
      expect(await events(res.json().paymentId)).toEqual([{ old_status: '', new_status: 'Denied' }]);
    });

    it('Review (sandbox @review.test): Blocked until the operator approves', async () => {
      const body = paymentBody({ vaultId: await vault(t, m, '4111111111111111') });
      body.customer.email = 'someone@review.test';
      const blocked = (await pay(body)).json();
      expect(blocked).toMatchObject({ status: 'Blocked', returnCode: '00', antiFraud: { decision: 'Review' } });
      const review = (decision: string, headers = t.adminHeaders) =>
        t.inject({ method: 'POST', url: `/admin/payments/${blocked.paymentId}/review`, headers, payload: { decision } });
      expect((await review('approve', m.headers)).statusCode).toBe(401);
      expect((await review('maybe')).statusCode).toBe(400);
      const approved = await review('approve');
      expect(approved.statusCode).toBe(200);
      expect(approved.json().status).toBe('Authorized');
      expect((await review('approve')).statusCode).toBe(409);
      expect(await events(blocked.paymentId)).toEqual([
        { old_status: '', new_status: 'Blocked' },
        { old_status: 'Blocked', new_status: 'Authorized' },
      ]);
    });

    it('Review then reject: Canceled', async () => {
      const body = paymentBody({ vaultId: await vault(t, m, '4111111111111111') });
      body.customer.email = 'someone@review.test';
      const blocked = (await pay(body)).json();
      const rejected = await t.inject({ method: 'POST', url: `/admin/payments/${blocked.paymentId}/review`, headers: t.adminHeaders, payload: { decision: 'reject' } });
      expect(rejected.json().status).toBe('Canceled');
    });

    it('velocity is real: with the default limits a card\'s 11th payment within an hour is held (Blocked)', async () => {
      const fresh = await t.merchant();
      const vaultId = await vault(t, fresh, '5555555555554444');
      const statuses: string[] = [];
      for (let i = 0; i < 11; i++) {
        const res = await pay(paymentBody({ vaultId }), fresh.headers);
        statuses.push(res.json().status);
      }
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill('Authorized'));
      expect(statuses[10]).toBe('Blocked');
    });

    it('a Blocked payment can be cancelled by the merchant', async () => {
      const body = paymentBody({ vaultId: await vault(t, m, '4111111111111111') });
      body.customer.email = 'x@review.test';
      const blocked = (await pay(body)).json();
      const res = await t.inject({ method: 'POST', url: `${PAY}/${blocked.paymentId}/cancel`, headers: m.headers });
      expect(res.json().status).toBe('Canceled');
    });
  });

  it('stores urlCallBack with the payment', async () => {
    const res = await pay(paymentBody({ vaultId: await vault(t, m, '4111111111111111') }, { urlCallBack: 'https://shop.test/callback' }));
    const row = await t.ctx.database.db.selectFrom('payments').select('url_callback').where('payment_id', '=', res.json().paymentId).executeTakeFirstOrThrow();
    expect(row.url_callback).toBe('https://shop.test/callback');
  });
});
