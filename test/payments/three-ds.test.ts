import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect, type TestDatabase } from '../support/database.js';
import { paymentBody, tokenize } from '../support/cards.js';
import { DEVICE, field, form } from '../support/three-ds.js';
import { SANDBOX_OTP } from '../../src/threeds/sandbox/server.js';
import { subscribe, webhookMerchant } from '../webhooks/support.js';

const PAY = '/gateway/v1/payments';
const NOTIFY = '/gateway/v1/3ds/notifications';
const CAVV = 'AAABB2gHA1B5EFNjWQcDAAAAAAA=';


describe(`3-D Secure in the card payment, sandbox 3DS server (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    const merchant = await webhookMerchant(t);
    m = merchant;
    // Every event of the account is recorded for delivery (the receiver need not exist: the notifications table is what is read).
    expect((await subscribe(t, merchant, { url: 'http://127.0.0.1:9/3ds', types: ['*'] })).statusCode).toBe(200);
  });
  afterAll(() => t.close());

  const pay = async (pan: string, threeDs: object | undefined, extra: Record<string, unknown> = { deviceInfo: DEVICE }) =>
    t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ numberToken: await tokenize(t, m, pan) }, { ...(threeDs ? { threeDs } : {}), ...extra }) });
  const ledger = (paymentId: string) => t.ctx.database.db.selectFrom('sandbox_acquirer_ledger').selectAll().where('idempotency_key', '=', paymentId).executeTakeFirst();
  const eventTypes = async () =>
    (await t.ctx.database.db.selectFrom('webhook_notifications').select(['type', 'payload']).where('account_number', '=', m.accountNumber).orderBy('id').execute()).map((r) => r.type);
  const paymentCount = async () => Number((await t.ctx.database.db.selectFrom('payments').select((e) => e.fn.countAll().as('n')).where('merchant_id', '=', m.merchantId).executeTakeFirstOrThrow()).n);

  /** Drives the sandbox ACS as the buyer's browser: posts the creq, answers the code, follows the auto-post to our notification endpoint. */
  async function challenge(acsUrl: string, creq: string, otp: string) {
    const page = await t.inject({ method: 'POST', url: new URL(acsUrl).pathname, ...form({ creq }) });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('one-time code');
    const answer = await t.inject({ method: 'POST', url: `${new URL(acsUrl).pathname}/answer`, ...form({ creq: field(page.body, 'creq')!, otp }) });
    expect(answer.statusCode).toBe(200);
    const cres = field(answer.body, 'cres')!;
    expect(answer.body).toContain(`action="${t.ctx.threeDs.notificationUrl}"`);
    return { cres, notified: await t.inject({ method: 'POST', url: NOTIFY, ...form({ cres }) }) };
  }

  it('Silent: frictionless, authorized with the authentication, liability shifted, payment.authenticated', async () => {
    const res = await pay('4000000000001000', { code3DS: '3fa85f64-5717-4562-b3fc-2c963f66afa6' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ status: 'Authorized', returnCode: '00', threeDs: { status: 'Silent', eci: '05', version: '2.2.0', liabilityShift: true } });
    expect(body.threeDs.transactionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.threeDs).not.toHaveProperty('acsUrl');
    expect(JSON.stringify(body)).not.toMatch(/cavv/i);
    expect(await eventTypes()).toEqual(expect.arrayContaining(['payment.authenticated']));
    // A card with no 3DS test role authenticates without friction too; Mastercard writes its own eci.
    const mc = (await pay('5555555555554444', {}, { deviceInfo: { ...DEVICE, browserColorDepth: 24, browserScreenHeight: 900, browserScreenWidth: 1440, browserTimeZone: -180 } })).json();
    expect(mc.threeDs).toMatchObject({ status: 'Silent', eci: '02', liabilityShift: true });
  });

  it('Attempt: authorized; Visa shifts the liability (06), Mastercard does not (01)', async () => {
    expect((await pay('4000000000001018', {})).json()).toMatchObject({ status: 'Authorized', threeDs: { status: 'Attempt', eci: '06', liabilityShift: true } });
    expect((await pay('5200000000001013', {})).json()).toMatchObject({ status: 'Authorized', threeDs: { status: 'Attempt', eci: '01', liabilityShift: false } });
  });

  it('Fail and issuer unavailable: Denied, nothing sent to the acquirer, the message says why', async () => {
    for (const [pan, why] of [['4000000000001109', /did not authenticate/], ['4000000000001125', /unavailable/]] as const) {
      const res = await pay(pan, {});
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body).toMatchObject({ status: 'Denied', returnCode: '05', threeDs: { status: 'Fail', liabilityShift: false } });
      expect(body.returnMessage).toMatch(why);
      expect(body.returnMessage).toMatch(/nothing was sent to the acquirer/i);
      expect(await ledger(body.paymentId)).toBeUndefined();
    }
  });

  it('external authentication: checked, sent with the authorization; an eci that is no authentication is Denied', async () => {
    const ok = (await pay('4111111111111111', { external: { cavv: CAVV, eci: '05', version: '2.2.0', dsTransactionId: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' } }, {})).json();
    expect(ok).toMatchObject({ status: 'Authorized', threeDs: { status: 'Silent', eci: '05', version: '2.2.0', liabilityShift: true } });
    const no = (await pay('4111111111111111', { external: { cavv: CAVV, eci: '07', version: '2.1.0' } }, {})).json();
    expect(no).toMatchObject({ status: 'Denied', threeDs: { status: 'Fail', liabilityShift: false } });
    expect(await ledger(no.paymentId)).toBeUndefined();
  });

  it('dataOnly: no authentication, no liability shift, authorized', async () => {
    const body = (await pay('4111111111111111', { dataOnly: true }, {})).json();
    expect(body).toMatchObject({ status: 'Authorized', threeDs: { status: 'Silent', eci: '07', liabilityShift: false } });
  });

  it('bad input is a 400 naming the field, with nothing recorded', async () => {
    const before = await paymentCount();
    const cases: [object, Record<string, unknown>, string][] = [
      [{ external: { cavv: 'short', eci: '05', version: '2.2.0' } }, {}, 'threeDs.external.cavv'],
      [{ external: { cavv: CAVV, eci: '5', version: '2.2.0' } }, {}, 'threeDs.external.eci'],
      [{ external: { cavv: CAVV, eci: '05', version: '1.0.2' } }, {}, 'threeDs.external.version'],
      [{ dataOnly: true, external: { cavv: CAVV, eci: '05', version: '2.2.0' } }, {}, 'threeDs.dataOnly'],
      [{}, {}, 'deviceInfo'],
      [{}, { deviceInfo: { ...DEVICE, browserUserAgent: undefined } }, 'deviceInfo.browserUserAgent'],
      [{ returnUrl: 'ftp://shop.example/back' }, { deviceInfo: DEVICE }, 'threeDs.returnUrl'],
    ];
    for (const [threeDs, extra, tag] of cases) {
      const res = await pay('4111111111111111', threeDs, extra);
      expect(res.statusCode, tag).toBe(400);
      expect(res.json().map((e: { tag: string }) => e.tag)).toContain(tag);
    }
    expect(await paymentCount()).toBe(before);
  });

  it('Challenge passed: 201 PendingAuthentication, the browser passes the code, the payment is authorized and the browser returns', async () => {
    const res = await pay('4000000000001091', { returnUrl: 'http://shop.example/back?order=9' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ status: 'PendingAuthentication', returnCode: null, threeDs: { status: 'Challenge', liabilityShift: false } });
    expect(body.threeDs.acsUrl).toMatch(/\/gateway\/v1\/3ds\/sandbox-acs$/);
    expect(await ledger(body.paymentId)).toBeUndefined();
    const { cres, notified } = await challenge(body.threeDs.acsUrl, body.threeDs.creq, SANDBOX_OTP);
    expect(notified.statusCode).toBe(303);
    const back = new URL(notified.headers.location as string);
    expect(back.origin + back.pathname).toBe('http://shop.example/back');
    expect(Object.fromEntries(back.searchParams)).toEqual({ order: '9', paymentId: body.paymentId, status: 'Authorized' });
    const after = (await t.inject({ method: 'GET', url: `${PAY}/${body.paymentId}`, headers: m.headers })).json();
    expect(after).toMatchObject({ status: 'Authorized', returnCode: '00', threeDs: { status: 'Challenge', eci: '05', liabilityShift: true } });
    expect(after.threeDs).not.toHaveProperty('creq');
    expect((await ledger(body.paymentId))?.outcome).toBe('approved');
    // The sealed card is gone with the challenge.
    const row = await t.ctx.database.db.selectFrom('payments').select('three_ds').where('payment_id', '=', body.paymentId).executeTakeFirstOrThrow();
    expect(row.three_ds).not.toMatch(/sealedCard/);
    // The same result posted again is refused and changes nothing: never charged twice.
    const again = await t.inject({ method: 'POST', url: NOTIFY, ...form({ cres }) });
    expect(again.statusCode).toBe(409);
    expect(await eventTypes()).toEqual(expect.arrayContaining(['payment.authentication_required', 'payment.authenticated', 'payment.authorized']));
  });

  it('Challenge failed (wrong code): Denied, nothing charged', async () => {
    const body = (await pay('4000000000001091', {})).json();
    const { notified } = await challenge(body.threeDs.acsUrl, body.threeDs.creq, '000000');
    expect(notified.statusCode).toBe(200);
    expect(notified.body).toContain('Denied');
    const after = (await t.inject({ method: 'GET', url: `${PAY}/${body.paymentId}`, headers: m.headers })).json();
    expect(after).toMatchObject({ status: 'Denied', returnCode: '05', threeDs: { status: 'Fail', liabilityShift: false } });
    expect(await ledger(body.paymentId)).toBeUndefined();
  });

  it('the sandbox ACS also takes the code with the CReq in one post (JSON or form), for clients without the page', async () => {
    const body = (await pay('4000000000001091', {})).json();
    const answer = await t.inject({ method: 'POST', url: new URL(body.threeDs.acsUrl).pathname, payload: { creq: body.threeDs.creq, otp: SANDBOX_OTP } });
    expect(answer.statusCode).toBe(200);
    const notified = await t.inject({ method: 'POST', url: NOTIFY, payload: { cres: field(answer.body, 'cres')! } });
    expect(notified.statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: `${PAY}/${body.paymentId}`, headers: m.headers })).json()).toMatchObject({ status: 'Authorized', threeDs: { status: 'Challenge', liabilityShift: true } });
  });

  it('authenticationType 03 asks for a challenge with any card', async () => {
    expect((await pay('4111111111111111', { authenticationType: '03' })).json()).toMatchObject({ status: 'PendingAuthentication', threeDs: { status: 'Challenge' } });
  });

  it('a notification that is not the 3DS server\'s, or of no transaction, is refused and changes nothing', async () => {
    const body = (await pay('4000000000001091', {})).json();
    const forged = await t.inject({ method: 'POST', url: NOTIFY, ...form({ cres: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.e30.AAAA' }) });
    expect(forged.statusCode).toBe(400);
    expect((await t.inject({ method: 'POST', url: NOTIFY, ...form({}) })).statusCode).toBe(400);
    expect((await t.inject({ method: 'GET', url: `${PAY}/${body.paymentId}`, headers: m.headers })).json().status).toBe('PendingAuthentication');
  });

  it('a challenge not completed in time ends Denied with nothing charged (the sandbox clock moves it)', async () => {
    const body = (await pay('4000000000001091', {})).json();
    const advanced = await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes: 11 } });
    expect(advanced.statusCode).toBe(200);
    const after = (await t.inject({ method: 'GET', url: `${PAY}/${body.paymentId}`, headers: m.headers })).json();
    expect(after).toMatchObject({ status: 'Denied', threeDs: { status: 'Fail' } });
    expect(after.returnMessage).toMatch(/did not complete the challenge/);
    expect(await ledger(body.paymentId)).toBeUndefined();
    // Its late result changes nothing.
    const late = await challenge(body.threeDs.acsUrl, body.threeDs.creq, SANDBOX_OTP);
    expect(late.notified.statusCode).toBe(409);
  });

  it('a challenge left open by an instance that died completes on another one, charged once', async () => {
    const body = (await pay('4000000000001091', {})).json();
    // A second instance over the same database: nothing of the first one's memory, only what it recorded.
    const shared = { ...t.ctx.database, url: '', close: async () => {} } as unknown as TestDatabase;
    const other = await testApp({ database: async () => shared });
    try {
      const acs = new URL(body.threeDs.acsUrl).pathname;
      const page = await other.inject({ method: 'POST', url: acs, ...form({ creq: body.threeDs.creq }) });
      const answer = await other.inject({ method: 'POST', url: `${acs}/answer`, ...form({ creq: field(page.body, 'creq')!, otp: SANDBOX_OTP }) });
      const cres = field(answer.body, 'cres')!;
      const [first, second] = await Promise.all([other.inject({ method: 'POST', url: NOTIFY, ...form({ cres }) }), t.inject({ method: 'POST', url: NOTIFY, ...form({ cres }) })]);
      expect([first.statusCode, second.statusCode].sort()).toEqual([200, 409]);
      const after = (await t.inject({ method: 'GET', url: `${PAY}/${body.paymentId}`, headers: m.headers })).json();
      expect(after).toMatchObject({ status: 'Authorized', threeDs: { status: 'Challenge', liabilityShift: true } });
      const entries = await t.ctx.database.db.selectFrom('sandbox_acquirer_ledger').select('outcome').where('idempotency_key', '=', body.paymentId).execute();
      expect(entries).toEqual([{ outcome: 'approved' }]);
    } finally {
      await other.close();
    }
  });

  it("the merchant's anti-fraud settings ask for a challenge above an amount or from a score, for payments the gateway authenticates", async () => {
    const other = await t.merchant();
    const settings = (payload: object) => t.inject({ method: 'PUT', url: `/admin/merchants/${other.merchantId}/antifraud`, headers: t.adminHeaders, payload });
    expect((await settings({ challengeAmount: 50000 })).statusCode).toBe(200);
    const payAs = async (amount: number, threeDs: boolean) =>
      (await t.inject({ method: 'POST', url: PAY, headers: other.headers, payload: paymentBody({ numberToken: await tokenize(t, other, '4111111111111111') }, { payment: { transactionType: 'credit', amount, productType: 'avista', installments: 1 }, ...(threeDs ? { threeDs: {}, deviceInfo: DEVICE } : {}) }) })).json();
    expect(await payAs(60000, true)).toMatchObject({ status: 'PendingAuthentication', threeDs: { status: 'Challenge' } });
    expect(await payAs(50000, true)).toMatchObject({ status: 'Authorized', threeDs: { status: 'Silent' } });
    // Without a browser context there is nothing to challenge: authorized as before.
    expect((await payAs(60000, false)).status).toBe('Authorized');
    // From a score: the amount rule's 50 points reach challengeScore 50, under the review threshold.
    expect((await settings({ challengeAmount: null, challengeScore: 50, amountLimit: 20000, reviewScore: 90, rejectScore: 100 })).statusCode).toBe(200);
    expect(await payAs(30000, true)).toMatchObject({ status: 'PendingAuthentication', antiFraud: { decision: 'Accept', score: 50 } });
    expect(await payAs(10000, true)).toMatchObject({ status: 'Authorized', threeDs: { status: 'Silent' } });
    expect((await t.inject({ method: 'GET', url: `/admin/merchants/${other.merchantId}/antifraud`, headers: t.adminHeaders })).json()).toMatchObject({ challengeAmount: null, challengeScore: 50 });
  });

  it('a payment without threeDs answers no threeDs block', async () => {
    const body = (await pay('4111111111111111', undefined, {})).json();
    expect(body.status).toBe('Authorized');
    expect(body).not.toHaveProperty('threeDs');
  });
});
