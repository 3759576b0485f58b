import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { paymentBody, tokenize, vault } from '../support/cards.js';

const PAY = '/gateway/v1/payments';

/**
 * POST /v1/payments reads its credential inside the payment's transaction (on PostgreSQL with
 * its first round trip) instead of before it. Revocation and the IP list must still take effect
 * at once, with nothing written, and with the same answer as before: a revoked credential is
 * 401 whatever else is wrong with the request.
 */
describe(`the payment's credential, read in its transaction (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  const db = () => t.ctx.database.db;
  const paymentsOf = async (merchantId: string) => (await db().selectFrom('payments').select('payment_id').where('merchant_id', '=', merchantId).execute()).length;
  const ledgerOf = async (merchantId: string) => (await db().selectFrom('sandbox_acquirer_ledger').select('idempotency_key').where('merchant_id', '=', merchantId).execute()).length;
  const revoke = async (m: TestMerchant) => {
    const res = await t.inject({ method: 'DELETE', url: `/admin/credentials/${m.userName}`, headers: t.adminHeaders });
    expect(res.statusCode, res.body).toBe(200);
  };
  const pay = (m: TestMerchant, payload: object, extra: { headers?: Record<string, string>; remoteAddress?: string } = {}) =>
    t.inject({ method: 'POST', url: PAY, headers: { ...m.headers, ...extra.headers }, payload, remoteAddress: extra.remoteAddress });
  /** A second credential of `m`'s merchant, logged in. */
  async function secondCredential(m: TestMerchant): Promise<Record<string, string>> {
    const c = await t.ctx.merchants.createCredential(m.merchantId, { scopes: ['payments'] });
    const login = await t.inject({ method: 'POST', url: '/gateway/api/auth/token', payload: { userName: c.userName, password: c.password } });
    return { authorization: `Bearer ${login.json().accessToken}` };
  }
  const expectRevoked = (res: { statusCode: number; body: string; json(): any }) => {
    expect(res.statusCode, res.body).toBe(401);
    expect(res.json()[0].description).toBe('The credential of this token was revoked.');
  };

  it('a token whose credential was revoked after it was issued pays nothing: 401, no payment, no charge', async () => {
    const m = await t.merchant();
    const vaultId = await vault(t, m, '4111111111111111');
    expect((await pay(m, paymentBody({ vaultId }))).statusCode).toBe(201);
    await revoke(m);
    expectRevoked(await pay(m, paymentBody({ vaultId })));
    expect(await paymentsOf(m.merchantId)).toBe(1);
    expect(await ledgerOf(m.merchantId)).toBe(1);
  });

  it('an address outside the credential\'s list is refused (403) with nothing written', async () => {
    const m = await t.merchant({ allowedIps: ['127.0.0.1', '10.0.0.0/8'] });
    const vaultId = await vault(t, m, '4111111111111111');
    const inside = await pay(m, paymentBody({ vaultId }), { remoteAddress: '10.1.2.3' });
    expect(inside.statusCode, inside.body).toBe(201);
    const outside = await pay(m, paymentBody({ vaultId }), { remoteAddress: '192.0.2.7' });
    expect(outside.statusCode, outside.body).toBe(403);
    expect(outside.json()[0].tag).toBe('ip_not_allowed');
    expect(await paymentsOf(m.merchantId)).toBe(1);
    expect(await ledgerOf(m.merchantId)).toBe(1);
  });

  it('a revoked credential is 401 before anything else wrong with the request: the body, the card, the scope, an Idempotency-Key', async () => {
    const m = await t.merchant();
    const vaultId = await vault(t, m, '4111111111111111');
    const token = await tokenize(t, m, '5555555555554444');
    const noScope = await t.merchant({ scopes: ['recurrence'] });
    await revoke(m);
    await revoke(noScope);
    // Refused by the schema, by the service's rules before its transaction, by a card inside it.
    expectRevoked(await pay(m, { ...paymentBody({ vaultId }), payment: { amount: -1 } }));
    const body = paymentBody({ vaultId });
    expectRevoked(await pay(m, { ...body, payment: { ...body.payment, productType: 'lojista' } }));
    expectRevoked(await pay(m, paymentBody({ vaultId: '00000000-0000-4000-8000-000000000000' })));
    expectRevoked(await pay(m, paymentBody({ encryptedCard: 'not-base64-rsa' })));
    expectRevoked(await pay(noScope, paymentBody({ vaultId })));
    expectRevoked(await pay(m, paymentBody({ vaultId }), { headers: { 'idempotency-key': 'revoked-1' } }));
    // The numberToken's consumption was rolled back with the refusal: another credential of the merchant still pays with it.
    expectRevoked(await pay(m, paymentBody({ numberToken: token })));
    const other = await t.inject({ method: 'POST', url: PAY, headers: await secondCredential(m), payload: paymentBody({ numberToken: token }) });
    expect(other.statusCode, other.body).toBe(201);
    expect(await paymentsOf(m.merchantId)).toBe(1);
  });

  it('an active credential still gets the request\'s own error', async () => {
    const m = await t.merchant();
    const unknown = await pay(m, paymentBody({ vaultId: '00000000-0000-4000-8000-000000000000' }));
    expect(unknown.statusCode, unknown.body).toBe(404);
    const body = paymentBody({ vaultId: '00000000-0000-4000-8000-000000000000' });
    const bad = await pay(m, { ...body, payment: { ...body.payment, productType: 'lojista' } });
    expect(bad.statusCode, bad.body).toBe(400);
    expect(bad.json()[0].tag).toBe('payment.productType');
  });
});
