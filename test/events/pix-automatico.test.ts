import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { addDays, clock, recurrence } from '../recurrence/support.js';
import { pixAuto } from '../recurrence/pix-automatico-support.js';
import { Receiver } from '../webhooks/receiver.js';
import { expectEventShape, expectSigned, listening, received, typesOf } from './support.js';

/** Pix Automático's events, delivered over HTTP as the card path's: authorized, paid, retry scheduled, denied, canceled with who cancelled. */
describe(`Pix Automático events (${testDialect})`, () => {
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
  const settle = async (advance?: Promise<unknown>) => {
    await advance;
    await clock(t).runDue();
    await clock(t).runDue();
  };
  const recurring = (type: string) => typesOf(received(receiver, '/pix')).filter((x) => x.startsWith('billing.') || x.startsWith('subscription.')).filter((x) => !type || x === type);
  const data = (type: string) => received(receiver, '/pix').filter((r) => r.json.type === type).map((r) => r.json.data);

  it('subscription.authorized, billing.paid, billing.retry_scheduled, billing.denied, subscription.canceled by the payer', async () => {
    const { m, secret } = await listening(t, receiver, '/pix', ['*']);
    const pix = pixAuto(t, m);
    const api = recurrence(t, m);
    const planId = await pix.plan();
    const { subscriptionId, recurrenceId } = await pix.active(planId);
    await settle();
    expect(recurring('')).toEqual(['billing.opened', 'subscription.authorized', 'billing.paid', 'billing.opened']);
    expect(data('subscription.authorized')).toEqual([{ subscriptionId, planId, oldStatus: 'PendingAuthorization', status: 'Active', paymentMethod: 'Pix' }]);
    expect(data('billing.paid')[0]).toMatchObject({ installment: 1, returnCode: '00', paymentMethod: 'Pix' });
    expect(typesOf(received(receiver, '/pix'))).toContain('pix_charge.paid');

    receiver.received.length = 0;
    const second = (await api.billings()).find((b) => b.installment === 2);
    await pix.outcome(recurrenceId, 'insufficient_funds');
    await settle(clock(t).to(addDays(second.expireAt, 7)));
    expect(recurring('')).toEqual(['billing.retry_scheduled', 'billing.retry_scheduled', 'billing.retry_scheduled', 'billing.denied', 'billing.opened']);
    expect(data('billing.retry_scheduled').map((d) => [d.attempt, d.nextAttemptDate, d.returnCode])).toEqual(
      [1, 2, 3].map((k) => [k, addDays(second.expireAt, 2 * k).toISOString(), 'AM04']),
    );
    expect(data('billing.denied')[0]).toMatchObject({ billingId: second.id, returnCode: 'AM04' });

    receiver.received.length = 0;
    await pix.payer(recurrenceId, 'cancel');
    await settle();
    expect(recurring('')).toEqual(['subscription.canceled', 'billing.canceled']);
    expect(data('subscription.canceled')[0]).toMatchObject({ subscriptionId, oldStatus: 'Active', status: 'Canceled', canceledBy: 'payer' });
    for (const got of received(receiver, '/pix')) expectEventShape(got);
    expectSigned(received(receiver, '/pix'), secret);
  });
});
