import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { paymentBody, tokenize, vault } from '../support/cards.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { Receiver } from '../webhooks/receiver.js';
import { liftVelocity } from '../recurrence/support.js';

const PAY = '/gateway/v1/payments';
const TOKEN_URL = '/gateway/api/auth/token';

/** One structured line per business event, with ids to act on and never card data. */
describe(`business event logs (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    await liftVelocity(t, m);
  });
  afterAll(() => t.close());

  const lines = (msg: string) => t.logs.lines.map((l) => JSON.parse(l)).filter((l) => l.msg === msg);

  it('a declined payment: one "payment declined" line with its ids and returnCode, no card number', async () => {
    const pan = '4000000000009995';
    const numberToken = await tokenize(t, m, pan);
    const res = await t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ numberToken }) });
    const { paymentId } = res.json();
    const mine = lines('payment declined').filter((l) => l.paymentId === paymentId);
    expect(mine).toEqual([
      expect.objectContaining({ level: 30, event: 'payment.declined', paymentId, merchantId: m.merchantId, accountNumber: m.accountNumber, returnCode: '51', antiFraud: 'Accept' }),
    ]);
    // An approval is no business event worth a line of its own (the request line has it).
    const approved = await t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ numberToken: await tokenize(t, m, '4111111111111111') }) });
    expect(lines('payment declined').filter((l) => l.paymentId === approved.json().paymentId)).toEqual([]);
    expect(t.logs.text).not.toContain(pan);
    expect(t.logs.text).not.toContain('4111111111111111');
  });

  it('an anti-fraud rejection is a decline 59 too', async () => {
    await t.inject({ method: 'POST', url: '/admin/antifraud/blocklist', headers: t.adminHeaders, payload: { kind: 'document', value: '11144477735' } });
    const numberToken = await tokenize(t, m, '5555555555554444');
    const res = await t.inject({
      method: 'POST',
      url: PAY,
      headers: m.headers,
      payload: paymentBody({ numberToken }, { customer: { documentType: 'cpf', documentNumber: '11144477735', email: 'x@example.com', ipAddress: '198.51.100.7', country: 'BR' } }),
    });
    expect(res.json()).toMatchObject({ status: 'Denied', returnCode: '59' });
    expect(lines('payment declined').find((l) => l.paymentId === res.json().paymentId)).toMatchObject({ returnCode: '59', antiFraud: 'Reject' });
    expect(t.logs.text).not.toContain('5555555555554444');
  });

  it('a login lockout: one "login locked" line naming a known credential and its merchant, never the password', async () => {
    const other = await t.merchant();
    for (let i = 0; i < 6; i++) {
      const res = await t.inject({ method: 'POST', url: TOKEN_URL, payload: { userName: other.userName, password: `wrong-password-${i}` } });
      expect(res.statusCode).toBe(i < 5 ? 401 : 429);
    }
    const mine = lines('login locked').filter((l) => l.userName === other.userName);
    expect(mine).toEqual([expect.objectContaining({ event: 'login.locked', api: 'gateway', merchantId: other.merchantId, failures: 5, lockedForSeconds: 900, ip: expect.any(String) })]);
    expect(t.logs.text).not.toContain('wrong-password-');
  });

  it('an unknown userName is locked too, without writing what was typed', async () => {
    const typed = 'maybe-a-password-typed-as-name';
    for (let i = 0; i < 5; i++) await t.inject({ method: 'POST', url: TOKEN_URL, payload: { userName: typed, password: 'whatever-it-is' } });
    expect(lines('login locked').filter((l) => l.knownUser === false)).toHaveLength(1);
    expect(t.logs.text).not.toContain(typed);
  });

  it('a subscription blocked by a decline: one "subscription blocked" line with its ids and returnCode', async () => {
    const vaultId = await vault(t, m, '4111111111111111');
    const plan = await t.inject({ method: 'POST', url: '/gateway/v1/recurrences/plans', headers: m.headers, payload: { name: 'Gold', description: 'Gold', amount: 12.6, planType: 'Monthly', paymentMethod: 'CreditCard' } });
    const sub = await t.inject({ method: 'POST', url: '/gateway/v1/recurrences/subscriptions', headers: m.headers, payload: { planId: plan.json(), vaultId, orderNumber: 'ORD-LOG' } });
    const subscriptionId = sub.json();
    expect((await t.inject({ method: 'POST', url: `/sandbox/vaults/${vaultId}/outcome`, headers: t.adminHeaders, payload: { returnCode: '41' } })).statusCode).toBe(200);
    expect((await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes: 0 } })).statusCode).toBe(200);
    const [line] = lines('subscription blocked').filter((l) => l.subscriptionId === subscriptionId);
    expect(line).toMatchObject({ event: 'subscription.blocked', merchantId: m.merchantId, returnCode: '41', billingId: expect.any(String), paymentId: expect.any(String) });
    expect(lines('payment declined').find((l) => l.paymentId === line.paymentId)).toMatchObject({ returnCode: '41', billingId: line.billingId });
  });

  it('a delivery given up after 72 hours: one "webhook delivery exhausted" line with the notification and account', async () => {
    const closed = new Receiver();
    await closed.start();
    const url = closed.url('/cb?token=receiver-secret');
    await closed.stop();
    const numberToken = await tokenize(t, m, '4111111111111111');
    const res = await t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ numberToken }, { urlCallBack: url }) });
    expect(res.json().status).toBe('Authorized');
    expect((await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { hours: 73 } })).statusCode).toBe(200);
    const exhausted = lines('webhook delivery exhausted');
    expect(exhausted).toEqual([
      expect.objectContaining({ event: 'webhook.exhausted', channel: 'callback', type: 'PaymentStatus', merchantId: m.merchantId, accountNumber: m.accountNumber, notificationId: expect.any(Number), attempts: expect.any(Number), statusCode: null }),
    ]);
    expect(exhausted[0].attempts).toBeGreaterThan(10);
    expect(t.logs.text).not.toContain('receiver-secret');
  });
});
