import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CieloStandIn, gatewayEnvFor } from '../standins/cielo.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { cardNumber, encryptCard, paymentBody, tokenize, vault } from '../support/cards.js';
import { outcome, recurrence } from '../recurrence/support.js';

const ZA = '/gateway/v1/zero-auth';
const VAULT = '/gateway/v1/vaults/cards';
const VISA = '4111111111111111';
const DECLINED = '4000000000000002'; // sandbox: 05
const CANCELLED = '4000000000009987'; // sandbox: 46

describe(`zero auth in the sandbox (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
  });
  afterAll(() => t.close());
  const za = (payload: object) => t.inject({ method: 'POST', url: ZA, headers: m.headers, payload });
  const vaultCount = async () => Number((await t.ctx.database.db.selectFrom('vault_cards').select((eb) => eb.fn.countAll().as('n')).where('merchant_id', '=', m.merchantId).executeTakeFirstOrThrow()).n);
  const ledgerCount = async () => Number((await t.ctx.database.db.selectFrom('sandbox_acquirer_ledger').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('verifies plain card fields: the seed-style answer, masked number, nothing charged', async () => {
    const before = await ledgerCount();
    const res = await za({ cardNumber: VISA, expirationMonth: '12', expirationYear: '2035', securityCode: '123', cardholderName: 'MARIA SILVA' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ brand: 'visa', cardNumber: '411111******1111', transactionType: 'credit', cardAuthSuccess: true, returnCode: '00', message: expect.any(String) });
    expect(res.body).not.toContain(VISA);
    expect(await ledgerCount()).toBe(before);
  });

  it('answers a refused test card with its code and decline category', async () => {
    const declined = await za({ cardNumber: DECLINED, expirationMonth: '12', expirationYear: '2035' });
    expect(declined.json()).toMatchObject({ cardAuthSuccess: false, returnCode: '05', declineCategory: 'retryable' });
    const cancelled = await za({ cardInfo: { cardNumber: CANCELLED, expirationMonth: '12', expirationYear: '2035' } });
    expect(cancelled.json()).toMatchObject({ cardAuthSuccess: false, returnCode: '46', declineCategory: 'final' });
  });

  it('reads a numberToken without using it up: the token still pays afterwards', async () => {
    const numberToken = await tokenize(t, m, VISA, { securityCode: '123' });
    const res = await za({ numberToken });
    expect(res.json()).toMatchObject({ cardAuthSuccess: true, cardNumber: '411111******1111' });
    const paid = await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: paymentBody({ numberToken }) });
    expect(paid.statusCode, paid.body).toBe(201);
    expect(paid.json().status).toBe('Authorized');
    // Used now: a zero auth on it is the token's own 400.
    const used = await za({ numberToken });
    expect(used.statusCode).toBe(400);
    expect(used.json()[0].tag).toBe('numberToken');
  });

  it('checks a stored card (its forced sandbox outcome included) and an encryptedCard', async () => {
    const vaultId = await vault(t, m, VISA);
    expect((await za({ vaultId })).json()).toMatchObject({ cardAuthSuccess: true, brand: 'visa' });
    await outcome(t, vaultId, '54');
    expect((await za({ vaultId })).json()).toMatchObject({ cardAuthSuccess: false, returnCode: '54', declineCategory: 'final' });
    const encryptedCard = await encryptCard(t, { number: '5555555555554444', expirationMonth: '12', expirationYear: '2035', securityCode: '321' });
    expect((await za({ encryptedCard })).json()).toMatchObject({ cardAuthSuccess: true, brand: 'mastercard', cardNumber: '555555******4444' });
    const other = await t.merchant();
    const foreign = await t.inject({ method: 'POST', url: ZA, headers: other.headers, payload: { vaultId } });
    expect(foreign.statusCode).toBe(404);
  });

  it('is a 400 naming cardInfo with no card source or two of them', async () => {
    for (const payload of [{}, { cardholderName: 'X' }, { cardNumber: VISA, expirationMonth: '12', expirationYear: '2035', vaultId: '00000000-0000-4000-8000-000000000000' }, { numberToken: 'tok_x', cardInfo: { vaultId: 'v' } }]) {
      const res = await za(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().map((e: { tag: string }) => e.tag)).toContain('cardInfo');
    }
  });

  it('vault verify: a refused card is a 422 tagged card and nothing is stored; a good one is stored', async () => {
    const before = await vaultCount();
    const refused = await t.inject({ method: 'POST', url: VAULT, headers: m.headers, payload: { cardNumber: DECLINED, expirationMonth: '12', expirationYear: '2035', securityCode: '123', cardholderName: 'ANA', verify: true } });
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json()).toEqual([{ tag: 'card', description: expect.stringContaining('Not authorized') }]);
    expect(await vaultCount()).toBe(before);
    // A numberToken refused by the check is not used up.
    const numberToken = await tokenize(t, m, DECLINED);
    expect((await t.inject({ method: 'POST', url: VAULT, headers: m.headers, payload: { numberToken, cardholderName: 'ANA', verify: true } })).statusCode).toBe(422);
    expect((await za({ numberToken })).statusCode).toBe(200);
    const stored = await t.inject({ method: 'POST', url: VAULT, headers: m.headers, payload: { cardNumber: VISA, expirationMonth: '12', expirationYear: '2035', securityCode: '123', cardholderName: 'ANA', verify: true } });
    expect(stored.statusCode, stored.body).toBe(201);
    const row = await t.ctx.database.db.selectFrom('vault_cards').select(['network_reference']).where('vault_id', '=', stored.json().vaultId).executeTakeFirstOrThrow();
    expect(row.network_reference).toMatch(/^SBX/);
    expect(await vaultCount()).toBe(before + 1);
  });

  it('verifyCardsOnSubscribe: off by default; on, a refused card makes no subscription', async () => {
    const s = await t.merchant();
    const r = recurrence(t, s);
    const settings = await t.inject({ method: 'GET', url: `/admin/merchants/${s.merchantId}/card-settings`, headers: t.adminHeaders });
    expect(settings.json()).toEqual({ verifyCardsOnSubscribe: false });
    const planId = await r.plan();
    const bad = await vault(t, s, DECLINED);
    // Off: the subscription is made whatever the card.
    await r.subscribe(planId, bad, 'ORD-OFF');
    const put = await t.inject({ method: 'PUT', url: `/admin/merchants/${s.merchantId}/card-settings`, headers: t.adminHeaders, payload: { verifyCardsOnSubscribe: true } });
    expect(put.json()).toEqual({ verifyCardsOnSubscribe: true });
    const refused = await r.post('/gateway/v1/recurrences/subscriptions', { planId, vaultId: bad, orderNumber: 'ORD-ON' });
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json()[0].tag).toBe('card');
    const count = await t.ctx.database.db.selectFrom('subscriptions').select((eb) => eb.fn.countAll().as('n')).where('merchant_id', '=', s.merchantId).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
    const good = await vault(t, s, VISA);
    await r.subscribe(planId, good, 'ORD-GOOD');
  });
});

describe(`zero auth through Cielo (stand-in, ${testDialect})`, () => {
  let cielo: CieloStandIn;
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    cielo = await new CieloStandIn({ random: () => 0 }).start();
    t = await testApp({ env: gatewayEnvFor(cielo, 2000) });
    m = await t.merchant();
  });
  afterAll(async () => {
    await t.close();
    await cielo.stop();
  });

  it("sends Cielo's POST /1/zeroauth and maps its answer; no sale is made", async () => {
    const good = cardNumber('4532', { last: 1 });
    const res = await t.inject({ method: 'POST', url: ZA, headers: m.headers, payload: { cardNumber: good, expirationMonth: '12', expirationYear: '2035', securityCode: '123', cardholderName: 'MARIA SILVA' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ cardAuthSuccess: true, returnCode: '00', brand: 'visa' });
    const bad = cardNumber('4532', { last: 2 });
    const refused = await t.inject({ method: 'POST', url: ZA, headers: m.headers, payload: { cardNumber: bad, expirationMonth: '12', expirationYear: '2035' } });
    expect(refused.json()).toMatchObject({ cardAuthSuccess: false, returnCode: '14', declineCategory: 'final' });
    expect(refused.json().message).toContain('Cielo ReturnCode 57');
    const log = cielo.zeroAuths();
    expect(log.map((z) => z.valid)).toEqual([true, false]);
    expect(log[0]).toMatchObject({ brand: 'Visa', holder: 'MARIA SILVA', hadSecurityCode: true, cardOnFile: undefined });
    expect(cielo.stats().sales).toBe(0);
  });

  it('vault verify goes through Cielo as the first use of a stored card and keeps its IssuerTransactionId', async () => {
    const good = cardNumber('5555', { last: 4 });
    const stored = await t.inject({ method: 'POST', url: VAULT, headers: m.headers, payload: { cardNumber: good, expirationMonth: '12', expirationYear: '2035', securityCode: '123', cardholderName: 'ANA', verify: true } });
    expect(stored.statusCode, stored.body).toBe(201);
    expect(cielo.zeroAuths().at(-1)).toMatchObject({ brand: 'Master', cardOnFile: { usage: 'First', reason: 'Recurring' }, valid: true });
    const row = await t.ctx.database.db.selectFrom('vault_cards').select(['network_reference']).where('vault_id', '=', stored.json().vaultId).executeTakeFirstOrThrow();
    expect(row.network_reference).toMatch(/^\d{15}$/);
    const refused = await t.inject({ method: 'POST', url: VAULT, headers: m.headers, payload: { cardNumber: cardNumber('5555', { last: 7 }), expirationMonth: '12', expirationYear: '2035', cardholderName: 'ANA', verify: true } });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()[0].tag).toBe('card');
  });
});
