import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { paymentBody, tokenize } from '../support/cards.js';
import { verify } from '../../src/modules/webhooks/signature.js';
import { issue, pay as payBankSlip, slipBody } from '../bankslips/support.js';
import { Receiver, type Received } from './receiver.js';
import { isBusinessDay, toIsoDate } from '../../src/domain/calendar.js';
import { advance, basic, deliveries, runDue, subscribed, webhookMerchant } from './support.js';

type M = Awaited<ReturnType<typeof webhookMerchant>>;

/**
 * Every notification type, produced by the real flow that makes it, delivered over HTTP to a
 * real receiver: signed, with basic auth, movementId increasing, bodies as the seed shows them.
 */
describe(`webhook notifications from real flows (${testDialect})`, () => {
  let t: TestApp;
  let m: M;
  let secret: string;
  const receiver = new Receiver();
  const auth = basic('shop', 'hook-pass');

  beforeAll(async () => {
    await receiver.start();
    t = await testApp();
    m = await webhookMerchant(t);
    secret = await subscribed(t, m, receiver.url('/hooks'), auth);
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });
  beforeEach(() => {
    receiver.received.length = 0;
  });

  async function pay(overrides: { card?: string; installments?: number; email?: string; urlCallBack?: string; amount?: number } = {}) {
    const numberToken = await tokenize(t, m, overrides.card ?? '4111111111111111');
    const installments = overrides.installments ?? 1;
    const body = paymentBody(
      { numberToken },
      {
        payment: { transactionType: 'credit', amount: overrides.amount ?? 10000, productType: installments === 1 ? 'avista' : 'lojista', installments },
        ...(overrides.urlCallBack ? { urlCallBack: overrides.urlCallBack } : {}),
      },
    );
    if (overrides.email) body.customer.email = overrides.email;
    const res = await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  }

  const hooks = () => receiver.on('/hooks').map((r) => r.json);

  it('payment authorized: TransactionStatus "" -> Authorized, signed, with basic auth, as the seed shows it', async () => {
    const payment = await pay();
    await runDue(t);
    const [got] = receiver.on('/hooks');
    expect(receiver.on('/hooks')).toHaveLength(1);
    expect(got.json).toEqual({
      movementId: expect.any(Number),
      nsu: payment.nsu,
      codAuth: payment.authorizationCode,
      installmentNumber: 0,
      moment: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      type: 'TransactionStatus',
      oldValue: '',
      newValue: 'Authorized',
    });
    expect(Object.keys(got.json)[0]).toBe('movementId');
    // moment is the business time of the change: the event row's.
    const event = await t.ctx.database.db.selectFrom('payment_events').select('occurred_at').where('payment_id', '=', payment.paymentId).executeTakeFirstOrThrow();
    expect(got.json.moment).toBe(event.occurred_at);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers.authorization).toBe(`Basic ${auth}`);
    expectSigned(got, secret);
  });

  it('payment blocked by anti-fraud review, then canceled: Blocked, then Canceled for the transaction and each installment', async () => {
    const payment = await pay({ email: 'buyer@review.test', installments: 3 });
    expect(payment.status).toBe('Blocked');
    const cancel = await t.inject({ method: 'POST', url: `/gateway/v1/payments/${payment.paymentId}/cancel`, headers: m.headers });
    expect(cancel.statusCode, cancel.body).toBe(200);
    await runDue(t);
    const changes = hooks()
      .sort((a, b) => a.movementId - b.movementId)
      .map((n) => [n.type, n.installmentNumber, n.oldValue, n.newValue, n.nsu]);
    expect(changes).toEqual([
      ['TransactionStatus', 0, '', 'Blocked', payment.nsu],
      ['TransactionStatus', 0, 'Blocked', 'Canceled', payment.nsu],
      ['InstallmentStatus', 1, 'Blocked', 'Canceled', payment.nsu],
      ['InstallmentStatus', 2, 'Blocked', 'Canceled', payment.nsu],
      ['InstallmentStatus', 3, 'Blocked', 'Canceled', payment.nsu],
    ]);
  });

  it('a blocked payment approved by the operator: Blocked -> Authorized', async () => {
    const payment = await pay({ email: 'buyer@review.test' });
    const review = await t.inject({ method: 'POST', url: `/admin/payments/${payment.paymentId}/review`, headers: t.adminHeaders, payload: { decision: 'approve' } });
    expect(review.statusCode, review.body).toBe(200);
    await runDue(t);
    expect(
      hooks()
        .sort((a, b) => a.movementId - b.movementId)
        .map((n) => [n.type, n.oldValue, n.newValue]),
    ).toEqual([
      ['TransactionStatus', '', 'Blocked'],
      ['TransactionStatus', 'Blocked', 'Authorized'],
    ]);
  });

  it('a denied payment is no conciliation transaction: no webhook (its urlCallBack still hears of it)', async () => {
    const payment = await pay({ card: '4000000000000002', urlCallBack: receiver.url('/callback') });
    expect(payment.status).toBe('Denied');
    await runDue(t);
    expect(receiver.on('/hooks')).toHaveLength(0);
    expect(receiver.on('/callback').map((r) => r.json)).toEqual([
      { paymentId: payment.paymentId, status: 'Denied', referenceTransaction: 'order-1', amount: 10000, moment: expect.any(String) },
    ]);
  });

  it('installments received: InstallmentStatus Authorized -> Paid for each, then the transaction Paid', async () => {
    const payment = await pay({ installments: 2, amount: 20001 });
    await runDue(t);
    receiver.received.length = 0;
    // Earlier tests' payments settle on the way too: follow this one's nsu.
    const ours = () => hooks().filter((n) => n.nsu === payment.nsu);
    await advance(t, { days: 35 });
    expect(ours().map((n) => [n.type, n.installmentNumber, n.oldValue, n.newValue])).toEqual([['InstallmentStatus', 1, 'Authorized', 'Paid']]);
    expect(ours()[0]).toMatchObject({ nsu: payment.nsu, codAuth: payment.authorizationCode });
    await advance(t, { days: 30 });
    const last = ours()
      .sort((a, b) => a.movementId - b.movementId)
      .map((n) => [n.type, n.installmentNumber, n.oldValue, n.newValue]);
    expect(last).toEqual([
      ['InstallmentStatus', 1, 'Authorized', 'Paid'],
      ['InstallmentStatus', 2, 'Authorized', 'Paid'],
      ['TransactionStatus', 0, 'Authorized', 'Paid'],
    ]);
    const conciliation = await t.inject({ method: 'GET', url: `/gateway/v1/payments/${payment.paymentId}`, headers: m.headers });
    expect(conciliation.json().status).toBe('Paid');
  });

  it('Pix paid: TransactionStatus "" -> Paid and its installment received the same day', async () => {
    // A Pix sale is received on the next business day: start on one, whatever day the suite runs
    // (earlier tests moved the clock 65 days past today, which may land on a weekend).
    while (!isBusinessDay(toIsoDate(t.ctx.clock.now()))) await advance(t, { days: 1 });
    const charge = await t.inject({ method: 'POST', url: '/gateway/v1/pix/charges', headers: m.headers, payload: { amount: 4550 } });
    expect(charge.statusCode, charge.body).toBe(201);
    const paid = await t.inject({ method: 'POST', url: `/sandbox/pix/${charge.json().id}/pay`, headers: t.adminHeaders });
    expect(paid.statusCode, paid.body).toBe(200);
    await runDue(t);
    const row = await t.ctx.database.db.selectFrom('pix_charges').select(['nsu', 'cod_auth']).where('id', '=', charge.json().id).executeTakeFirstOrThrow();
    expect(
      hooks()
        .sort((a, b) => a.movementId - b.movementId)
        .map((n) => [n.type, n.installmentNumber, n.oldValue, n.newValue, n.nsu, n.codAuth]),
    ).toEqual([
      ['TransactionStatus', 0, '', 'Paid', row.nsu, row.cod_auth],
      ['InstallmentStatus', 1, 'Authorized', 'Paid', row.nsu, row.cod_auth],
    ]);
  });

  it('bank slip issued, registered and paid: BankSlipStatus with statusBill codes, nsu = the slip id', async () => {
    const res = await issue(t, { ...m, headers: m.integration }, slipBody());
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id;
    await runDue(t);
    expect((await payBankSlip(t, id)).statusCode).toBe(200);
    await runDue(t);
    const slips = hooks()
      .filter((n) => n.type === 'BankSlipStatus')
      .sort((a, b) => a.movementId - b.movementId);
    expect(slips.map((n) => [n.nsu, n.installmentNumber, n.oldValue, n.newValue])).toEqual([
      [id, 0, '', '1'],
      [id, 0, '1', '2'],
      [id, 0, '2', '3'],
    ]);
  });

  it('urlCallBack hears every status change, signed with the account secret, without the webhook basic auth', async () => {
    const payment = await pay({ urlCallBack: receiver.url('/callback?order=77') });
    const cancel = await t.inject({ method: 'POST', url: `/gateway/v1/payments/${payment.paymentId}/cancel`, headers: m.headers });
    expect(cancel.statusCode).toBe(200);
    await runDue(t);
    // The webhook hears the same cancellation, for the transaction and its installment.
    expect(
      hooks()
        .filter((n) => n.nsu === payment.nsu)
        .sort((a, b) => a.movementId - b.movementId)
        .map((n) => [n.type, n.installmentNumber, n.oldValue, n.newValue]),
    ).toEqual([
      ['TransactionStatus', 0, '', 'Authorized'],
      ['TransactionStatus', 0, 'Authorized', 'Canceled'],
      ['InstallmentStatus', 1, 'Authorized', 'Canceled'],
    ]);
    const calls = receiver.received.filter((r) => r.path === '/callback?order=77');
    expect(calls.map((r) => r.json.status).sort()).toEqual(['Authorized', 'Canceled']);
    for (const call of calls) {
      expect(call.json).toEqual({ paymentId: payment.paymentId, status: call.json.status, referenceTransaction: 'order-1', amount: 10000, moment: expect.any(String) });
      expect(call.headers.authorization).toBeUndefined();
      expectSigned(call, secret);
    }
  });

  it('numbers movements increasingly per account and lists each with its delivered attempt', async () => {
    await pay();
    await pay();
    await runDue(t);
    const ids = hooks().map((n) => n.movementId);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBeGreaterThan(ids[0]);
    const log = await deliveries(t, m, { channel: 'webhook' });
    const movementIds = log.map((d) => d.movementId);
    expect(movementIds).toEqual([...movementIds].sort((a, b) => a - b));
    expect(new Set(movementIds).size).toBe(movementIds.length);
    const latest = log.find((d) => d.movementId === ids[1]);
    expect(latest).toMatchObject({ status: 'Delivered', type: 'TransactionStatus', channel: 'webhook', nextAttemptAt: null });
    expect(latest.notification).toEqual(hooks()[1]);
    expect(latest.attempts).toEqual([{ at: expect.any(String), url: receiver.url('/hooks'), statusCode: 200, error: null, durationMs: expect.any(Number) }]);
  });

  it('counts attempts in /metrics and never logs secrets, credentials or URL paths', async () => {
    await pay();
    await runDue(t);
    const metrics = await t.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/webhook_attempts_total\{channel="webhook",outcome="Delivered"\} [1-9]/);
    expect(metrics.body).toMatch(/webhook_attempt_duration_seconds_count\{channel="webhook"\} [1-9]/);
    expect(t.logs.text).toContain('webhook attempt');
    expect(t.logs.text).not.toContain(auth);
    expect(t.logs.text).not.toContain(secret);
    expect(t.logs.text).not.toContain(secret.slice(6));
    expect(t.logs.text).not.toContain('order=77');
  });

  it('an account without a subscription gets no notifications at all', async () => {
    const quiet = await webhookMerchant(t);
    const numberToken = await tokenize(t, quiet, '4111111111111111');
    const res = await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: quiet.headers, payload: paymentBody({ numberToken }) });
    expect(res.statusCode).toBe(201);
    await runDue(t);
    expect(await deliveries(t, quiet)).toEqual([]);
    expect(receiver.received).toHaveLength(0);
  });
});

/** What a receiver does (README): recompute the Standard Webhooks signature over the raw body. */
function expectSigned(got: Received, secret: string): void {
  const id = String(got.headers['webhook-id']);
  const timestamp = Number(got.headers['webhook-timestamp']);
  expect(id).toMatch(/^msg_\d+$/);
  // Wall-clock seconds, so standard verifiers' 5-minute tolerance accepts it even in sandbox.
  expect(Math.abs(timestamp - got.receivedAt / 1000)).toBeLessThan(60);
  expect(verify(secret, id, timestamp, got.body, String(got.headers['webhook-signature']))).toBe(true);
}
