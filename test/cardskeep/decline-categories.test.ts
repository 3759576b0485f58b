import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cieloDeclineCategory } from '../../src/acquirer/cielo/mapping.js';
import { ABECS_DECLINE_CATEGORIES, declineCategoryOf } from '../../src/domain/decline-category.js';
import { decide } from '../../src/modules/recurrence/charge-outcome.js';
import { CieloStandIn, gatewayEnvFor } from '../standins/cielo.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { cardNumber, paymentBody, tokenize, vault } from '../support/cards.js';
import { clock, liftVelocity, outcome, recurrence } from '../recurrence/support.js';
import { Receiver } from '../webhooks/receiver.js';
import { listening } from '../events/support.js';

const PAY = '/gateway/v1/payments';

describe('decline categories as data', () => {
  it('ABECS Normativo 21: insufficient funds, generic and suspected fraud are retryable; lost, stolen, cancelled, expired, invalid are final', () => {
    expect(['05', '51', '59', '78', '96'].map((c) => ABECS_DECLINE_CATEGORIES[c])).toEqual(['retryable', 'retryable', 'retryable', 'retryable', 'retryable']);
    expect(['14', '41', '43', '46', '54', '57'].map((c) => ABECS_DECLINE_CATEGORIES[c])).toEqual(['final', 'final', 'final', 'final', 'final', 'final']);
    expect(declineCategoryOf('00')).toBeNull();
    expect(declineCategoryOf('ZZ')).toBe('final');
  });

  it("Cielo's own codes: Amex numbers and the sandbox's codes have their own entries", () => {
    expect(cieloDeclineCategory('116', 'production', '51')).toBe('retryable');
    expect(cieloDeclineCategory('208', 'production', '41')).toBe('final');
    expect(cieloDeclineCategory('57', 'sandbox', '54')).toBe('final');
    expect(cieloDeclineCategory('77', 'sandbox', '46')).toBe('final');
    expect(cieloDeclineCategory('78', 'sandbox', '78')).toBe('retryable');
    expect(cieloDeclineCategory('5', 'production', '05')).toBe('retryable');
  });

  it('a final category is never retried, whatever the code', () => {
    const ctx = { dueDate: new Date('2030-01-01T00:00:00Z'), failuresSoFar: 1, attempts: 4 };
    expect(decide({ status: 'Denied', returnCode: '51', declineCategory: 'retryable' }, ctx).kind).toBe('retry');
    expect(decide({ status: 'Denied', returnCode: '51', declineCategory: 'final' }, ctx)).toEqual({ kind: 'final', status: 'Denied', blockSubscription: false });
    expect(decide({ status: 'Denied', returnCode: '05', declineCategory: 'retryable' }, ctx).kind).toBe('final');
  });
});

describe(`decline categories on payments and billings (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  const receiver = new Receiver();
  beforeAll(async () => {
    await receiver.start();
    t = await testApp();
    m = await t.merchant();
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });
  const pay = async (pan: string) => (await t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ numberToken: await tokenize(t, m, pan) }) })).json();

  it('every declined card payment carries its category; an approved one none', async () => {
    expect(await pay('4000000000000002')).toMatchObject({ status: 'Denied', returnCode: '05', declineCategory: 'retryable' });
    expect(await pay('4000000000009995')).toMatchObject({ status: 'Denied', returnCode: '51', declineCategory: 'retryable' });
    const cancelled = await pay('4000000000009987');
    expect(cancelled).toMatchObject({ status: 'Denied', returnCode: '46', declineCategory: 'final' });
    const got = await t.inject({ method: 'GET', url: `${PAY}/${cancelled.paymentId}`, headers: m.headers });
    expect(got.json().declineCategory).toBe('final');
    const approved = await pay('4111111111111111');
    expect(approved.status).toBe('Authorized');
    expect(approved).not.toHaveProperty('declineCategory');
  });

  it('billing attempts: history and billing.payment_failed carry the category and the next attempt, or none', async () => {
    const { m: sm } = await listening(t, receiver, '/billing', ['*']);
    const r = recurrence(t, sm);
    const vaultId = await vault(t, sm, '4111111111111111');
    const planId = await r.plan({ attempts: 1 });
    await outcome(t, vaultId, '51');
    await r.subscribe(planId, vaultId);
    await clock(t).runDue();
    const [billing] = await r.billings();
    const detail = await r.billing(billing.id);
    expect(detail.status).toBe('Opened');
    expect(detail.attemptsHistory[0]).toMatchObject({ returnCode: '51', declineCategory: 'retryable' });
    await outcome(t, vaultId, '46');
    await clock(t).days(3);
    const after = await r.billing(billing.id);
    expect(after.status).toBe('Denied');
    expect(after.attemptsHistory[1]).toMatchObject({ returnCode: '46', declineCategory: 'final' });
    const failed = (await t.ctx.database.db.selectFrom('webhook_notifications').select(['type', 'payload']).where('merchant_id', '=', sm.merchantId).where('type', '=', 'billing.payment_failed').orderBy('id').execute()).map((n) => JSON.parse(n.payload).data);
    expect(failed).toHaveLength(2);
    expect(failed[0]).toMatchObject({ billingId: billing.id, returnCode: '51', declineCategory: 'retryable', attempt: 0, nextAttemptAt: detail.nextAttemptDate ?? expect.any(String) });
    expect(failed[0].nextAttemptAt).not.toBeNull();
    expect(failed[1]).toMatchObject({ returnCode: '46', declineCategory: 'final', attempt: 1, nextAttemptAt: null });
  });
});

describe(`decline categories through Cielo (stand-in, ${testDialect})`, () => {
  let cielo: CieloStandIn;
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    cielo = await new CieloStandIn({ random: () => 0 }).start();
    t = await testApp({ env: gatewayEnvFor(cielo, 2000) });
    m = await t.merchant();
    await liftVelocity(t, m);
  });
  afterAll(async () => {
    await t.close();
    await cielo.stop();
  });

  it("Cielo's codes decide the category: 77 (cancelled) final, 78 (locked) retryable, 99 (time out: nothing charged) retryable", async () => {
    const pay = async (last: number) => t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ numberToken: await tokenize(t, m, cardNumber('4532', { last })) }) });
    expect((await pay(7)).json()).toMatchObject({ status: 'Denied', returnCode: '46', declineCategory: 'final' });
    expect((await pay(5)).json()).toMatchObject({ status: 'Denied', returnCode: '78', declineCategory: 'retryable' });
    const timeOut = await pay(6);
    expect(timeOut.statusCode).toBe(502);
    const id = /payment ([0-9a-f-]{36})/.exec(timeOut.json()[0].description)![1];
    const got = await t.inject({ method: 'GET', url: `${PAY}/${id}`, headers: m.headers });
    expect(got.json()).toMatchObject({ status: 'Denied', returnCode: '96', declineCategory: 'retryable' });
  });
});
