import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IllegalTransition } from '../../src/domain/lifecycles.js';
import { bankSlipsRepository } from '../../src/modules/bankslips/repository.js';
import { disputesRepository } from '../../src/modules/disputes/repository.js';
import { refundsRepository } from '../../src/modules/payments/refund-repository.js';
import { paymentsRepository } from '../../src/modules/payments/repository.js';
import { settleCharge } from '../../src/modules/pix/charge-paid.js';
import { billingsRepository } from '../../src/modules/recurrence/billings-repository.js';
import { subscriptionsRepository } from '../../src/modules/recurrence/subscriptions-repository.js';
import { inDays, issued, pay as paySlip, slipBody } from '../bankslips/support.js';
import { vault } from '../support/cards.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { pay, settlementMerchant } from '../settlement/support.js';
import { R, recurrence } from '../recurrence/support.js';

type Merchant = Awaited<ReturnType<typeof settlementMerchant>>;

/**
 * Each machine's writers refuse a move its table (src/domain/lifecycles.ts) does not have, and
 * the row stays as it was: through the service the API calls (its own 409), and through the
 * writer the services share (IllegalTransition before any statement).
 */
describe(`status writers refuse illegal moves (${testDialect})`, () => {
  let t: TestApp;
  let m: Merchant;
  let slips: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    m = await settlementMerchant(t);
    slips = await t.merchant({ api: 'integration' });
  });
  afterAll(() => t.close());

  const db = () => t.ctx.database.db;
  const at = () => t.ctx.clock.now().toISOString();
  const payment = (id: string) => db().selectFrom('payments').selectAll().where('payment_id', '=', id).executeTakeFirstOrThrow();

  it('payments: a Denied payment is neither cancelled nor authorized', async () => {
    const p = await pay(t, m, { amount: 1000, installments: 1, email: 'buyer@reject.test' });
    expect(p.status).toBe('Denied');
    const before = await payment(p.paymentId);
    const res = await t.inject({ method: 'POST', url: `/gateway/v1/payments/${p.paymentId}/cancel`, headers: m.headers });
    expect(res.statusCode).toBe(409);
    expect(res.json()[0].tag).toBe('invalid_state');
    await expect(paymentsRepository.transition(db(), p.paymentId, 'Denied', 'Authorized', at())).rejects.toBeInstanceOf(IllegalTransition);
    expect(await payment(p.paymentId)).toEqual(before);
  });

  it('refunds: a Succeeded refund does not become Failed', async () => {
    const p = await pay(t, m, { amount: 3000, installments: 1 });
    const made = await t.inject({ method: 'POST', url: `/gateway/v1/payments/${p.paymentId}/refunds`, headers: m.headers, payload: { amount: 1000 } });
    expect(made.json()).toMatchObject({ status: 'Succeeded' });
    const [before] = await refundsRepository.listOf(db(), p.paymentId);
    const recorded = await t.ctx.payments.refunds.record(before, { outcome: 'failed', returnMessage: 'too late' });
    expect(recorded).toEqual(before);
    expect(await refundsRepository.settle(db(), before.refund_id, 'Failed', 'too late', at())).toBeUndefined();
    expect(await refundsRepository.find(db(), before.refund_id)).toEqual(before);
  });

  it('disputes: a Won dispute is not accepted nor lost afterwards', async () => {
    const p = await pay(t, m, { amount: 5000, installments: 1 });
    const dispute = (await t.inject({ method: 'POST', url: '/admin/disputes', headers: t.adminHeaders, payload: { paymentId: p.paymentId, reasonCode: '104' } })).json();
    await t.inject({ method: 'POST', url: `/admin/disputes/${dispute.disputeId}/resolve`, headers: t.adminHeaders, payload: { outcome: 'won' } });
    const before = await disputesRepository.find(db(), dispute.disputeId);
    expect(before?.status).toBe('Won');
    const res = await t.inject({ method: 'POST', url: `/gateway/v1/disputes/${dispute.disputeId}/accept`, headers: m.headers });
    expect(res.statusCode).toBe(409);
    expect(res.json()[0].tag).toBe('status');
    expect(() => disputesRepository.move(db(), dispute.disputeId, ['Won'], 'Lost', at(), true)).toThrow(IllegalTransition);
    expect(await disputesRepository.find(db(), dispute.disputeId)).toEqual(before);
  });

  describe('recurrence', () => {
    let subscriptionId: string;
    let billingId: string;
    beforeAll(async () => {
      const api = recurrence(t, m);
      const planId = await api.plan({ trialDays: 5 });
      subscriptionId = await api.subscribe(planId, await vault(t, m, '4111111111111111'));
      // The merchant's only subscription: its billing 1, due after the trial.
      billingId = (await api.billings())[0].id;
    });
    const billing = () => db().selectFrom('billings').selectAll().where('billing_id', '=', billingId).executeTakeFirstOrThrow();
    const subscription = () => db().selectFrom('subscriptions').selectAll().where('subscription_id', '=', subscriptionId).executeTakeFirstOrThrow();

    it('billings: a Canceled billing is neither cancelled again nor paid', async () => {
      expect((await recurrence(t, m).post(`${R}/billing/${billingId}/cancel`)).statusCode).toBe(200);
      const before = await billing();
      expect(before.status).toBe('Canceled');
      const again = await recurrence(t, m).post(`${R}/billing/${billingId}/cancel`);
      expect(again.statusCode).toBe(409);
      expect(await billingsRepository.recordPix(db(), billingId, before.attempts_made, { status: 'Paid', next_attempt_at: null, attempts_history: '[]', attempts_made: before.attempts_made + 1 }, at())).toBe(false);
      expect(await billing()).toEqual(before);
    });

    it('subscriptions: a Finished subscription is not reactivated', async () => {
      // As the last billing of a Custom plan leaves it.
      await db().updateTable('subscriptions').set({ status: 'Finished' }).where('subscription_id', '=', subscriptionId).execute();
      const before = await subscription();
      const res = await recurrence(t, m).post(`${R}/subscriptions/${subscriptionId}/status`, { status: 'Actived' });
      expect(res.statusCode).toBe(409);
      await expect(subscriptionsRepository.transition(db(), subscriptionId, ['Finished'], 'Active', at())).rejects.toBeInstanceOf(IllegalTransition);
      expect(await subscription()).toEqual(before);
    });
  });

  it('Pix charges: a Paid charge is not paid again', async () => {
    const charge = (await t.inject({ method: 'POST', url: '/gateway/v1/pix/charges', headers: m.headers, payload: { amount: 2500 } })).json();
    expect((await t.inject({ method: 'POST', url: `/sandbox/pix/${charge.id}/pay`, headers: t.adminHeaders })).statusCode).toBe(200);
    const row = () => db().selectFrom('pix_charges').selectAll().where('id', '=', charge.id).executeTakeFirstOrThrow();
    const before = await row();
    expect(before.status).toBe('Paid');
    expect((await t.inject({ method: 'POST', url: `/sandbox/pix/${charge.id}/pay`, headers: t.adminHeaders })).statusCode).toBe(409);
    await expect(db().transaction().execute((trx) => settleCharge(trx, { queue: t.ctx.queue, settlement: t.ctx.settlement }, before, at()))).rejects.toBeInstanceOf(IllegalTransition);
    expect(await row()).toEqual(before);
  });

  it('bank slips: a paid slip (3) is neither paid again, cancelled, nor moved back to issued (2)', async () => {
    const slip = await issued(t, slips, slipBody({ dueDate: await inDays(t, 20) }));
    expect((await paySlip(t, slip.id)).statusCode).toBe(200);
    const before = await bankSlipsRepository.find(db(), slip.id);
    expect(before?.status_bill).toBe(3);
    expect((await paySlip(t, slip.id)).statusCode).toBe(409);
    const cancel = await t.inject({ method: 'POST', url: `/integration/api/billissuer/${slip.id}/cancel?accountNumber=${slips.accountNumber}`, headers: slips.headers });
    expect(cancel.statusCode).toBe(409);
    await expect(bankSlipsRepository.transition(db(), slip.id, 3, 2, at())).rejects.toBeInstanceOf(IllegalTransition);
    expect(await bankSlipsRepository.find(db(), slip.id)).toEqual(before);
  });
});
