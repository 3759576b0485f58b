import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { vault } from '../support/cards.js';
import { addDays, clock, outcome, R, recurrence } from '../recurrence/support.js';
import { Receiver } from '../webhooks/receiver.js';
import { expectEventShape, expectLogged, expectSigned, listening, received, typesOf, type EventMerchant } from './support.js';

/**
 * Billing, subscription and plan events (docs/events.md), each produced by a real recurring
 * flow on the sandbox clock and delivered over HTTP: signed, in the delivery log, and only to
 * subscriptions that chose the type.
 */
describe(`recurrence events (${testDialect})`, () => {
  let t: TestApp;
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.start();
    t = await testApp();
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });
  beforeEach(() => {
    receiver.received.length = 0;
  });

  async function recurringMerchant(path: string, types?: string[]) {
    const { m, secret } = await listening(t, receiver, path, types);
    return { m, secret, api: recurrence(t, m), clk: clock(t), vaultId: await vault(t, m, '4111111111111111') };
  }
  /**
   * Runs what is due, twice: a charge records its outcome at the (ticking) virtual time after
   * the advance's target, so its notifications fall due a moment later, at the second run.
   */
  const settle = async (advance?: Promise<unknown>) => {
    await advance;
    await clock(t).runDue();
    await clock(t).runDue();
  };
  const data = (path: string, type: string) => received(receiver, path).filter((r) => r.json.type === type).map((r) => r.json.data);

  it('51 then 46: opened, retry scheduled with its date, denied, subscription blocked with reason and code; GET says why; reactivated and canceled', async () => {
    const { m, secret, api, clk, vaultId } = await recurringMerchant('/all', ['*']);
    const planId = await api.plan({ attempts: 1 });
    await outcome(t, vaultId, '51');
    const subscriptionId = await api.subscribe(planId, vaultId);
    await settle();
    const [billing] = await api.billings();
    expect(typesOf(received(receiver, '/all'))).toEqual(['subscription.active', 'billing.opened', 'payment.denied', 'billing.payment_failed', 'billing.retry_scheduled']);
    expect(data('/all', 'subscription.active')).toEqual([{ subscriptionId, planId, oldStatus: '', status: 'Active' }]);
    expect(data('/all', 'billing.opened')).toEqual([{ billingId: billing.id, subscriptionId, installment: 1, amount: 12.6, expireAt: billing.expireAt }]);
    const [retry] = data('/all', 'billing.retry_scheduled');
    expect(retry).toMatchObject({ billingId: billing.id, returnCode: '51', attempt: 1, nextAttemptDate: addDays(billing.expireAt, 2).toISOString() });
    expect(data('/all', 'payment.denied')[0]).toMatchObject({ paymentId: retry.paymentId, oldStatus: '', status: 'Denied', amount: 1260 });

    receiver.received.length = 0;
    await outcome(t, vaultId, '46');
    await settle(clk.days(2));
    expect(typesOf(received(receiver, '/all'))).toEqual(['payment.denied', 'billing.payment_failed', 'billing.denied', 'subscription.blocked']);
    const history = (await api.billing(billing.id)).attemptsHistory;
    const denied = data('/all', 'billing.denied')[0];
    expect(denied).toMatchObject({ billingId: billing.id, returnCode: '46', returnMessage: history[1].returnMessage, paymentId: history[1].paymentId });
    const [blocked] = data('/all', 'subscription.blocked');
    expect(blocked).toEqual({
      subscriptionId,
      planId,
      oldStatus: 'Active',
      status: 'Blocked',
      reason: history[1].returnMessage,
      returnCode: '46',
      billingId: billing.id,
      paymentId: history[1].paymentId,
    });
    expect(blocked.reason).toEqual(expect.any(String));
    expect(await api.subscription(subscriptionId)).toMatchObject({ status: 'Blocked', blockedReason: history[1].returnMessage, blockedReturnCode: '46' });
    for (const got of received(receiver, '/all')) expectEventShape(got);

    receiver.received.length = 0;
    await outcome(t, vaultId, null);
    expect((await api.post(`${R}/subscriptions/${subscriptionId}/status`, { status: 'Actived' })).statusCode).toBe(200);
    await settle();
    expect(typesOf(received(receiver, '/all'))).toEqual(['subscription.active', 'billing.opened', 'TransactionStatus', 'payment.authorized', 'billing.paid', 'billing.opened']);
    expect(data('/all', 'subscription.active')[0]).toMatchObject({ oldStatus: 'Blocked', status: 'Active' });
    expect(data('/all', 'billing.opened').map((b) => b.installment)).toEqual([2, 3]);
    expect(data('/all', 'billing.paid')[0]).toMatchObject({ installment: 2, returnCode: '00' });
    const active = await api.subscription(subscriptionId);
    expect(active.status).toBe('Active');
    expect(active).not.toHaveProperty('blockedReason');

    receiver.received.length = 0;
    expect((await api.post(`${R}/subscriptions/${subscriptionId}/status`, { status: 'Canceled' })).statusCode).toBe(200);
    expect((await api.post(`${R}/plans/${planId}/status`, { status: 'Inactive' })).statusCode).toBe(200);
    await settle();
    expect(typesOf(received(receiver, '/all'))).toEqual(['subscription.canceled', 'billing.canceled', 'plan.status_changed']);
    expect(data('/all', 'subscription.canceled')[0]).toMatchObject({ subscriptionId, oldStatus: 'Active', status: 'Canceled' });
    expect(data('/all', 'billing.canceled')[0]).toMatchObject({ installment: 3, reason: 'The subscription was canceled.' });
    expect(data('/all', 'plan.status_changed')).toEqual([{ planId, oldStatus: 'Active', status: 'Inactive' }]);

    await expectLogged(t, m, receiver.on('/all'));
    expectSigned(receiver.on('/all'), secret);
  });

  it('96: billing.payment_invalid; a plan canceled: its billings and subscriptions canceled with it; a billing canceled by the merchant', async () => {
    const { m, secret, api, clk, vaultId } = await recurringMerchant('/all', ['*']);
    const planId = await api.plan({ attempts: 0 });
    await outcome(t, vaultId, '96');
    await api.subscribe(planId, vaultId);
    await settle();
    expect(data('/all', 'billing.payment_invalid')).toEqual([expect.objectContaining({ installment: 1, returnCode: '96' })]);
    // The next billing (installment 2, due in 30 days) is Opened; the merchant cancels it.
    const opened = (await api.billings()).find((b) => b.status === 'Opened');
    receiver.received.length = 0;
    expect((await api.post(`${R}/billing/${opened.id}/cancel`)).statusCode).toBe(200);
    await settle();
    expect(typesOf(received(receiver, '/all'))).toEqual(['billing.canceled', 'billing.opened']);
    expect(data('/all', 'billing.canceled')[0]).toMatchObject({ billingId: opened.id, reason: 'The billing was canceled.' });

    receiver.received.length = 0;
    const trialPlan = await api.plan({ trialDays: 10 });
    const [a, b] = [await api.subscribe(trialPlan, vaultId, 'ORD-A'), await api.subscribe(trialPlan, vaultId, 'ORD-B')];
    expect((await api.post(`${R}/subscriptions/${b}/status`, { status: 'Canceled' })).statusCode).toBe(200);
    await settle();
    receiver.received.length = 0;
    expect((await api.post(`${R}/plans/${trialPlan}/status`, { status: 'Canceled' })).statusCode).toBe(200);
    await settle();
    expect(typesOf(received(receiver, '/all'))).toEqual(['plan.status_changed', 'billing.canceled', 'subscription.canceled']);
    expect(data('/all', 'plan.status_changed')).toEqual([{ planId: trialPlan, oldStatus: 'Active', status: 'Canceled' }]);
    expect(data('/all', 'subscription.canceled')).toEqual([{ subscriptionId: a, planId: trialPlan, oldStatus: 'Active', status: 'Canceled', reason: 'The plan was canceled.' }]);
    expect(data('/all', 'billing.canceled')).toEqual([expect.objectContaining({ subscriptionId: a, installment: 1, reason: 'The plan was canceled.' })]);
    await expectLogged(t, m, receiver.on('/all'));
    expectSigned(receiver.on('/all'), secret);
  });

  it('a Custom plan billed to its last installment: subscription.finished', async () => {
    const { api, vaultId } = await recurringMerchant('/all', ['subscription.finished', 'billing.paid']);
    const planId = await api.plan({ planType: 'Custom', interval: 20, installments: 1 });
    const subscriptionId = await api.subscribe(planId, vaultId);
    await settle();
    expect(typesOf(received(receiver, '/all'))).toEqual(['billing.paid', 'subscription.finished']);
    expect(data('/all', 'subscription.finished')).toEqual([{ subscriptionId, planId, oldStatus: 'Active', status: 'Finished' }]);
  });

  it('a subscription hears only the types it chose; without a list, only the conciliation notifications as before', async () => {
    const chosen = await recurringMerchant('/chosen', ['billing.denied', 'subscription.blocked']);
    const plain = await recurringMerchant('/plain');
    for (const w of [chosen, plain]) {
      const planId = await w.api.plan({ attempts: 0 });
      await outcome(t, w.vaultId, null);
      await w.api.subscribe(planId, w.vaultId, 'ORD-OK');
      await settle();
      await outcome(t, w.vaultId, '46');
      await w.api.subscribe(planId, w.vaultId, 'ORD-46');
    }
    await settle();
    expect(typesOf(received(receiver, '/chosen'))).toEqual(['billing.denied', 'subscription.blocked']);
    // The default: the approved charge's TransactionStatus, nothing of the catalogue.
    expect(typesOf(received(receiver, '/plain'))).toEqual(['TransactionStatus']);
    expect(received(receiver, '/plain')[0].json).toMatchObject({ oldValue: '', newValue: 'Authorized' });
    const view = await t.inject({ method: 'GET', url: `/integration/api/webhooks/subscriptions?accountNumber=${plain.m.accountNumber}`, headers: plain.m.integration });
    expect(view.json().types).toEqual(['TransactionStatus', 'InstallmentStatus', 'BankSlipStatus']);
    await expectLogged(t, chosen.m, receiver.on('/chosen'));
    expectSigned(receiver.on('/chosen'), chosen.secret);
  });
});

export type { EventMerchant };
