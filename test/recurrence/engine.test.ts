import { afterEach, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { vault } from '../support/cards.js';
import { addDays, iso, outcome, R } from './support.js';
import { world, type World } from './world.js';

/** The billing engine through HTTP and the sandbox clock (contract section 8). */
describe(`recurrence billing engine (${testDialect})`, () => {
  let w: World;
  afterEach(() => w.t.close());

  it('bills after the trial: billing 1 Opened at creation + trialDays, charged at its due time as a card payment', async () => {
    w = await world();
    const planId = await w.api.plan({ trialDays: 10, amount: 12.6 });
    const subscriptionId = await w.api.subscribe(planId, w.vaultId);
    const sub = await w.api.subscription(subscriptionId);
    const [opened] = await w.api.billings();
    expect(opened).toMatchObject({ status: 'Opened', installment: 1, amount: 12.6, createdBy: w.m.userName, modifiedBy: null, modifiedDate: null });
    expect(opened.expireAt).toBe(iso(addDays(sub.createdDate, 10)));
    expect(opened.subscription).toMatchObject({ id: subscriptionId, vaultId: w.vaultId, status: 'Active', plan: { id: planId, amount: 12.6 } });

    await w.clk.days(9);
    expect((await w.api.billing(opened.id)).status).toBe('Opened');
    expect(await w.api.payments(opened.id)).toEqual([]);

    await w.clk.days(1);
    const paid = await w.api.billing(opened.id);
    expect(paid).toMatchObject({ status: 'Paid', modifiedBy: 'system', modifiedDate: opened.expireAt });
    const [payment] = await w.api.payments(opened.id);
    expect(paid.attemptsHistory).toEqual([{ date: opened.expireAt, returnCode: '00', returnMessage: 'Approved', paymentId: payment.payment_id }]);
    // A card payment like any other: visible through the payments API, amount in cents.
    const got = await w.api.get(`/gateway/v1/payments/${payment.payment_id}`);
    expect(got.json()).toMatchObject({ status: 'Authorized', amount: 1260, installments: 1, productType: 'avista', referenceTransaction: opened.id, maskedCardNumber: '411111******1111' });
    const events = await w.t.ctx.database.db.selectFrom('payment_events').select(['new_status', 'occurred_at']).where('payment_id', '=', payment.payment_id).execute();
    expect(events).toEqual([{ new_status: 'Authorized', occurred_at: opened.expireAt }]);

    const [, next] = await w.api.billings();
    expect(next).toMatchObject({ status: 'Opened', installment: 2, expireAt: iso(addDays(opened.expireAt, 30)), createdBy: 'system' });
  });

  it('runs twelve monthly cycles in a row, each due 30 days after the previous, charged the amount rounded half-up to cents', async () => {
    w = await world();
    const planId = await w.api.plan({ amount: 10.005 });
    await w.api.subscribe(planId, w.vaultId);
    await w.clk.runDue();
    await w.clk.days(330);
    const billings = await w.api.billings();
    const D = billings[0].expireAt;
    expect(billings).toHaveLength(13);
    expect(billings.map((b) => [b.installment, b.status, b.expireAt])).toEqual(
      Array.from({ length: 13 }, (_, i) => [i + 1, i < 12 ? 'Paid' : 'Opened', iso(addDays(D, 30 * i))]),
    );
    for (const b of billings.slice(1, 12)) {
      const detail = await w.api.billing(b.id);
      expect(detail.attemptsHistory).toEqual([expect.objectContaining({ date: b.expireAt, returnCode: '00' })]);
    }
    // Billing 1 was due at the subscription's creation and charged by the run a moment later.
    const [first] = (await w.api.billing(billings[0].id)).attemptsHistory;
    expect(Date.parse(first.date) - Date.parse(D)).toBeLessThan(1000);
    const payments = await w.api.paymentsOfMerchant();
    expect(payments).toHaveLength(12);
    // Authorized, or already Paid by settlement once its receivable came in.
    expect(payments.map((p) => [p.status === 'Authorized' || p.status === 'Paid', Number(p.amount)])).toEqual(Array(12).fill([true, 1001]));
    expect(new Set(payments.map((p) => p.billing_id))).toEqual(new Set(billings.slice(0, 12).map((b) => b.id)));
  });

  it('blocks the subscription on a cancelled card (46): Denied without retry, never charged again until reactivated', async () => {
    w = await world();
    const planId = await w.api.plan({ attempts: 4 });
    const subscriptionId = await w.api.subscribe(planId, w.vaultId);
    await outcome(w.t, w.vaultId, '46');
    await w.clk.runDue();
    const [billing] = await w.api.billings();
    expect(await w.api.billing(billing.id)).toMatchObject({ status: 'Denied', attemptsHistory: [{ returnCode: '46' }] });
    expect((await w.api.subscription(subscriptionId)).status).toBe('Blocked');

    await w.clk.days(90);
    expect(await w.api.billings()).toHaveLength(1);
    expect(await w.api.paymentsOfMerchant()).toHaveLength(1);

    // Reactivated: the next billing is due at that moment, charged at once.
    await outcome(w.t, w.vaultId, null);
    const res = await w.api.post(`${R}/subscriptions/${subscriptionId}/status`, { status: 'Actived' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: subscriptionId });
    const now = w.clk.now().getTime();
    const [, again] = await w.api.billings();
    expect(again).toMatchObject({ installment: 2, status: 'Opened' });
    expect(Math.abs(Date.parse(again.expireAt) - now)).toBeLessThan(5000);
    await w.clk.runDue();
    expect((await w.api.billing(again.id)).status).toBe('Paid');
    const third = (await w.api.billings())[2];
    expect(third).toMatchObject({ installment: 3, status: 'Opened', expireAt: iso(addDays(again.expireAt, 30)) });
  });

  it('finishes a Custom plan after its installments: the subscription is Finished and final', async () => {
    w = await world();
    const planId = await w.api.plan({ planType: 'Custom', interval: 20, installments: 3 });
    const subscriptionId = await w.api.subscribe(planId, w.vaultId);
    await w.clk.runDue();
    await w.clk.days(40);
    await w.clk.days(60);
    const billings = await w.api.billings();
    expect(billings.map((b) => [b.installment, b.status])).toEqual([[1, 'Paid'], [2, 'Paid'], [3, 'Paid']]);
    expect(Date.parse(billings[2].expireAt) - Date.parse(billings[0].expireAt)).toBe(40 * 86_400_000);
    expect((await w.api.subscription(subscriptionId)).status).toBe('Finished');
    for (const status of ['Actived', 'Canceled']) {
      const res = await w.api.post(`${R}/subscriptions/${subscriptionId}/status`, { status });
      expect(res.statusCode).toBe(409);
      expect(res.json()[0].tag).toBe('invalid_state');
    }
  });

  it('cascades a plan cancel: its subscriptions and their Opened billings are Canceled and never charged', async () => {
    w = await world();
    const planId = await w.api.plan({ trialDays: 5 });
    const keptPlan = await w.api.plan({ trialDays: 5, name: 'Kept' });
    const s1 = await w.api.subscribe(planId, w.vaultId, 'A');
    const s2 = await w.api.subscribe(planId, w.vaultId, 'B');
    const kept = await w.api.subscribe(keptPlan, w.vaultId, 'C');
    expect((await w.api.post(`${R}/plans/${planId}/status`, { status: 'Canceled' })).statusCode).toBe(200);
    for (const id of [s1, s2]) expect((await w.api.subscription(id)).status).toBe('Canceled');
    expect((await w.api.subscription(kept)).status).toBe('Active');
    const canceled = await w.api.billings('&status=Canceled');
    expect(canceled.map((b) => b.subscription.id).sort()).toEqual([s1, s2].sort());
    expect(canceled.every((b) => b.modifiedBy === w.m.userName)).toBe(true);

    await w.clk.days(10);
    const payments = await w.api.paymentsOfMerchant();
    expect(payments).toHaveLength(1);
    const [keptBilling] = await w.api.billings('&status=Paid');
    expect(keptBilling.subscription.id).toBe(kept);
    // No new subscriptions, and no reactivation under a Canceled plan.
    expect((await w.api.post(`${R}/subscriptions`, { planId, vaultId: w.vaultId, orderNumber: 'D' })).statusCode).toBe(409);
    expect((await w.api.post(`${R}/subscriptions/${s1}/status`, { status: 'Actived' })).statusCode).toBe(409);
  });

  it('keeps billing the subscriptions of an Inactive plan, but takes no new ones', async () => {
    w = await world();
    const planId = await w.api.plan();
    const subscriptionId = await w.api.subscribe(planId, w.vaultId);
    await w.api.post(`${R}/plans/${planId}/status`, { status: 'Inactive' });
    const refused = await w.api.post(`${R}/subscriptions`, { planId, vaultId: w.vaultId, orderNumber: 'X' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()[0].description).toContain('Inactive');
    await w.clk.runDue();
    await w.clk.days(30);
    expect((await w.api.billings()).map((b) => b.status)).toEqual(['Paid', 'Paid', 'Opened']);
    expect((await w.api.subscription(subscriptionId)).status).toBe('Active');
  });

  it('never charges a Canceled subscription; reactivating it bills from that moment', async () => {
    w = await world();
    const planId = await w.api.plan({ trialDays: 5 });
    const subscriptionId = await w.api.subscribe(planId, w.vaultId);
    const res = await w.api.post(`${R}/subscriptions/${subscriptionId}/status`, { status: 'Canceled' });
    expect(res.json()).toEqual({ id: subscriptionId });
    const [first] = await w.api.billings();
    expect(first).toMatchObject({ status: 'Canceled', modifiedBy: w.m.userName });
    await w.clk.days(40);
    expect(await w.api.paymentsOfMerchant()).toEqual([]);
    expect(await w.api.billings()).toHaveLength(1);

    await w.api.post(`${R}/subscriptions/${subscriptionId}/status`, { status: 'Actived' });
    await w.clk.runDue();
    const [, second] = await w.api.billings();
    expect(second).toMatchObject({ installment: 2, status: 'Paid' });
    expect(await w.api.paymentsOfMerchant()).toHaveLength(1);
  });

  it('marks PaymentInvalid an acquirer failure (96), and a stored card expired before the charge without calling the acquirer', async () => {
    w = await world();
    const planId = await w.api.plan({ attempts: 4 });
    const first = await w.api.subscribe(planId, w.vaultId);
    await outcome(w.t, w.vaultId, '96');
    await w.clk.runDue();
    const [failed] = await w.api.billings();
    const detail = await w.api.billing(failed.id);
    expect(detail).toMatchObject({ status: 'PaymentInvalid', attemptsHistory: [{ returnCode: '96', paymentId: expect.any(String) }] });
    expect(await w.api.payments(failed.id)).toMatchObject([{ status: 'Denied', return_code: '96' }]);
    // Not retried although attempts is 4: billing 2 is simply the next cycle.
    expect((await w.api.billings()).map((b) => b.status)).toEqual(['PaymentInvalid', 'Opened']);
    await w.api.post(`${R}/subscriptions/${first}/status`, { status: 'Canceled' });

    // A card valid through next month, billed after a long trial.
    const now = w.clk.now();
    const expiring = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    const month = String(expiring.getUTCMonth() + 1).padStart(2, '0');
    const res = await w.t.inject({
      method: 'POST',
      url: '/gateway/v1/vaults/cards',
      headers: w.m.headers,
      payload: { cardNumber: '5555555555554444', expirationMonth: month, expirationYear: String(expiring.getUTCFullYear()), cardholderName: 'JOAO SOUZA' },
    });
    const shortLived = res.json().vaultId;
    const other = await w.api.plan({ trialDays: 120, name: 'Later' });
    const subscriptionId = await w.api.subscribe(other, shortLived);
    const calls = w.t.ctx.acquirer.sandbox.authorizeCalls;
    await w.clk.days(120);
    const [expired] = await w.api.billings(`&status=PaymentInvalid&orderBy=createdDate:desc`);
    expect(expired).toMatchObject({ installment: 1, subscription: { id: subscriptionId } });
    expect((await w.api.billing(expired.id)).attemptsHistory).toEqual([{ date: expired.expireAt, returnCode: '54', returnMessage: expect.stringContaining('expired'), paymentId: null, declineCategory: 'final' }]);
    expect(await w.api.payments(expired.id)).toEqual([]);
    expect(w.t.ctx.acquirer.sandbox.authorizeCalls).toBe(calls);

    // The merchant swaps the card: the next billing is charged on the new one.
    const fresh = await vault(w.t, w.m, '5555555555554444');
    expect((await w.api.post(`${R}/subscriptions/${subscriptionId}/vault`, { vaultId: fresh })).json()).toEqual({ id: subscriptionId });
    await w.clk.days(30);
    const next = (await w.api.billings(`&orderBy=createdDate:desc`)).find((b) => b.subscription.id === subscriptionId && b.installment === 2);
    expect(next.status).toBe('Paid');
    const [payment] = await w.t.ctx.database.db.selectFrom('payments').select(['vault_id', 'amount']).where('billing_id', '=', next.id).execute();
    expect(payment.vault_id).toBe(fresh);
  });

  it('voids a payment held by anti-fraud review and marks the billing Denied (nothing charged)', async () => {
    w = await world();
    const lowered = await w.t.inject({ method: 'PUT', url: `/admin/merchants/${w.m.merchantId}/antifraud`, headers: w.t.adminHeaders, payload: { amountLimit: 100 } });
    expect(lowered.statusCode).toBe(200);
    const planId = await w.api.plan({ attempts: 4 });
    await w.api.subscribe(planId, w.vaultId);
    await w.clk.runDue();
    const [billing] = await w.api.billings();
    const detail = await w.api.billing(billing.id);
    expect(detail).toMatchObject({ status: 'Denied', attemptsHistory: [{ returnCode: '59', returnMessage: expect.stringContaining('voided'), paymentId: expect.any(String) }] });
    expect(await w.api.payments(billing.id)).toMatchObject([{ status: 'Canceled' }]);
    const events = await w.t.ctx.database.db.selectFrom('payment_events').select('new_status').where('payment_id', '=', detail.attemptsHistory[0].paymentId).orderBy('id').execute();
    expect(events.map((e) => e.new_status)).toEqual(['Blocked', 'Canceled']);
    // Not a retryable decline: the subscription goes on to billing 2.
    expect((await w.api.billings()).map((b) => b.status)).toEqual(['Denied', 'Opened']);
  });
});
