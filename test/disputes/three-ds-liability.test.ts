import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { paymentBody, tokenize } from '../support/cards.js';
import { DEVICE } from '../support/three-ds.js';
import { DashboardClient } from '../dashboard/support.js';
import { advanceTo, search, settlementMerchant } from '../settlement/support.js';

type Merchant = Awaited<ReturnType<typeof settlementMerchant>>;

/**
 * A fraud chargeback of a sale whose 3-D Secure authentication shifted the liability to the
 * issuer shows `liabilityShift: true`; lost, it takes nothing from the merchant's receivables.
 * Reason codes in Visa's own notation (10.4) are taken beside Cielo's (104).
 */
describe(`disputes of 3-D Secure payments (${testDialect})`, () => {
  let t: TestApp;
  let m: Merchant;
  beforeAll(async () => {
    t = await testApp();
    await advanceTo(t, '2027-01-04T12:00:00.000Z');
    m = await settlementMerchant(t);
  });
  afterAll(() => t.close());

  const pay = async (pan: string, threeDs?: object) =>
    (await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: paymentBody({ numberToken: await tokenize(t, m, pan) }, { payment: { transactionType: 'credit', amount: 10000, productType: 'lojista', installments: 2 }, ...(threeDs ? { threeDs, deviceInfo: DEVICE } : {}) }) })).json();
  const register = (body: object) => t.inject({ method: 'POST', url: '/admin/disputes', headers: t.adminHeaders, payload: body });
  const resolve = (disputeId: string) => t.inject({ method: 'POST', url: `/admin/disputes/${disputeId}/resolve`, headers: t.adminHeaders, payload: { outcome: 'lost' } });
  const installments = async (nsu: string) =>
    ((await search(t, m.integration, 'search-by-code', { accountNumber: m.accountNumber, nsu })).json() as { installmentNumber: number; installmentStatus: string; receivedType: string }[]).map((r) => [r.installmentNumber, r.installmentStatus, r.receivedType]);

  it("a fraud chargeback (Visa's 10.4) of an authenticated sale: liabilityShift true; lost, nothing is debited", async () => {
    const p = await pay('4000000000001000', {});
    expect(p.threeDs.liabilityShift).toBe(true);
    const res = await register({ paymentId: p.paymentId, reasonCode: '10.4' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ reasonCode: '10.4', brandReasonCode: '10.4', reasonMessage: 'Outras fraudes - cartão ausente', liabilityShift: true });
    expect(await installments(p.nsu)).toEqual([[1, 'B', 'R'], [2, 'B', 'R']]);
    expect((await resolve(res.json().disputeId)).json()).toMatchObject({ status: 'Lost', liabilityShift: true });
    // The issuer pays: the sale stands, its installments are paid as scheduled, no debit record.
    expect((await t.inject({ method: 'GET', url: `/gateway/v1/payments/${p.paymentId}`, headers: m.headers })).json()).toMatchObject({ status: 'Authorized' });
    expect(await installments(p.nsu)).toEqual([[1, 'A', 'R'], [2, 'A', 'R']]);
  });

  it('without the shift (no 3DS, or a reason that is not fraud) a lost chargeback is debited as before', async () => {
    const plain = await pay('4111111111111111');
    const fraud = (await register({ paymentId: plain.paymentId, reasonCode: '104' })).json();
    expect(fraud).toMatchObject({ reasonCode: '104', brandReasonCode: '10.4', liabilityShift: false });
    await resolve(fraud.disputeId);
    expect((await t.inject({ method: 'GET', url: `/gateway/v1/payments/${plain.paymentId}`, headers: m.headers })).json().status).toBe('Canceled');

    const authenticated = await pay('4000000000001000', {});
    const notFraud = (await register({ paymentId: authenticated.paymentId, reasonCode: '13.1' })).json();
    expect(notFraud).toMatchObject({ reasonCode: '13.1', brandReasonCode: '13.1', liabilityShift: false });
    await resolve(notFraud.disputeId);
    expect((await t.inject({ method: 'GET', url: `/gateway/v1/payments/${authenticated.paymentId}`, headers: m.headers })).json().status).toBe('Canceled');
  });

  it("Mastercard's codes keep their notation; a dotted code another brand does not use is refused", async () => {
    const mc = await pay('5555555555554444');
    expect((await register({ paymentId: mc.paymentId, reasonCode: '48.37' })).statusCode).toBe(400);
    expect((await register({ paymentId: mc.paymentId, reasonCode: '4837' })).json()).toMatchObject({ reasonCode: '4837', brandReasonCode: '4837' });
  });
});

describe(`the dashboard's payment page shows the authentication (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  it('status, eci, version and whose the fraud liability is', async () => {
    const m = await settlementMerchant(t);
    const c = new DashboardClient(t);
    await c.loginMerchant(m);
    const pay = async (pan: string, threeDs?: object) =>
      (await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: paymentBody({ numberToken: await tokenize(t, m, pan) }, threeDs ? { threeDs, deviceInfo: DEVICE } : {}) })).json();
    const silent = await pay('4000000000001000', {});
    const page = (await c.get(`/dashboard/payments/${silent.paymentId}`)).body;
    expect(page).toMatch(/<dd id="three-ds">Silent, ECI 05, versão 2\.2\.0<\/dd>/);
    expect(page).toMatch(/<dd id="liability-shift">do emissor \(transferida\)<\/dd>/);
    const attempt = await pay('5200000000001013', {});
    expect((await c.get(`/dashboard/payments/${attempt.paymentId}`)).body).toMatch(/<dd id="liability-shift">do lojista<\/dd>/);
    const challenged = await pay('4000000000001091', {});
    expect((await c.get(`/dashboard/payments/${challenged.paymentId}`)).body).toContain('Aguardando autenticação');
    expect((await c.get(`/dashboard/payments/${(await pay('4111111111111111')).paymentId}`)).body).not.toContain('id="three-ds"');
  });
});
