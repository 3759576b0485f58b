import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxAcquirer } from '../../src/acquirer/sandbox/acquirer.js';
import { AcquirerUnavailable, type Acquirer, type RefundRequest } from '../../src/acquirer/types.js';
import { RetryLater } from '../../src/jobs/registry.js';
import { PaymentService } from '../../src/modules/payments/service.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { pay, settlementMerchant } from '../settlement/support.js';

type Merchant = Awaited<ReturnType<typeof settlementMerchant>>;

/**
 * A refund is recorded before it is sent, and an answer that does not come is never guessed:
 * it is looked up at once, and a refund still unknown stays Pending until the acquirer's own
 * record settles it. It is never sent a second time, so it is made at most once, and never lost.
 */
describe(`refund recovery (${testDialect})`, () => {
  let t: TestApp;
  let m: Merchant;
  let sandbox: SandboxAcquirer;
  beforeAll(async () => {
    t = await testApp();
    m = await settlementMerchant(t);
    sandbox = t.ctx.acquirer.sandbox;
  });
  afterAll(() => t.close());

  /** The sandbox behind a faulty line: the refund reaches it (or not), its answer is lost; lookups may fail too. */
  const lossy = (options: { reaches: boolean; sent?: boolean; lookups?: 'work' | 'fail'; windowMs?: number }) => {
    const acquirer: Acquirer & { refunds: number; lookups: number } = {
      refunds: 0,
      lookups: 0,
      authorize: (request, context) => sandbox.authorize(request, context),
      cancel: (request, context) => sandbox.cancel(request, context),
      lookup: (request) => sandbox.lookup(request),
      refund: async (request, context) => {
        acquirer.refunds += 1;
        if (options.reaches) await sandbox.refund(request, context);
        throw new AcquirerUnavailable(options.sent ?? true, 'socket hang up');
      },
      lookupRefund: async (request, context) => {
        acquirer.lookups += 1;
        if (options.lookups === 'fail') throw new AcquirerUnavailable(true, 'query down');
        return sandbox.lookupRefund(request, context);
      },
      closeRefund: (request, context, message) => sandbox.closeRefund(request, context, message),
      settleWindowMs: async () => options.windowMs ?? 0,
    };
    return acquirer;
  };

  const refundVia = (acquirer: Acquirer, paymentId: string, amount: number) => new PaymentService(t.ctx, acquirer).refunds.create(m.merchantId, paymentId, { amount });
  const ledger = (paymentId: string) => t.ctx.database.db.selectFrom('sandbox_acquirer_ledger').select(['amount', 'outcome']).where('idempotency_key', 'like', `refund:${paymentId}:%`).execute();
  const payment = async (paymentId: string) => (await t.inject({ method: 'GET', url: `/gateway/v1/payments/${paymentId}`, headers: m.headers })).json();
  const list = async (paymentId: string) => (await t.inject({ method: 'GET', url: `/gateway/v1/payments/${paymentId}/refunds`, headers: m.headers })).json().items;
  const advance = (minutes: number) => t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes } });
  const recoveryJobs = (refundId: string) => t.ctx.database.db.selectFrom('jobs').select('id').where('dedupe_key', '=', `refund.recover:${refundId}`).execute();

  it('a lost answer is looked up before the caller is answered: Succeeded, one refund at the acquirer', async () => {
    const { paymentId } = await pay(t, m, { amount: 10000, installments: 1 });
    const acquirer = lossy({ reaches: true });
    const refund = await refundVia(acquirer, paymentId, 3000);
    expect(refund).toMatchObject({ status: 'Succeeded', amount: 3000 });
    expect(acquirer.refunds).toBe(1);
    expect(acquirer.lookups).toBe(1);
    expect(await ledger(paymentId)).toEqual([{ amount: 3000, outcome: 'refunded' }]);
    expect(await payment(paymentId)).toMatchObject({ refundedAmount: 3000 });
  });

  it('a lost answer the lookups cannot settle stays Pending; the next refund and a cancel wait; the job settles it once', async () => {
    const { paymentId } = await pay(t, m, { amount: 10000, installments: 1 });
    const acquirer = lossy({ reaches: true, lookups: 'fail' });
    const refund = await refundVia(acquirer, paymentId, 4000);
    expect(refund).toMatchObject({ status: 'Pending', amount: 4000, returnMessage: null });
    expect(await payment(paymentId)).toMatchObject({ status: 'Authorized', refundedAmount: 0 });

    const next = await t.inject({ method: 'POST', url: `/gateway/v1/payments/${paymentId}/refunds`, headers: m.headers, payload: { amount: 1000 } });
    expect(next.statusCode).toBe(409);
    expect(next.json()).toEqual([{ tag: 'status', description: expect.stringContaining(refund.refundId) }]);
    expect((await t.inject({ method: 'POST', url: `/gateway/v1/payments/${paymentId}/cancel`, headers: m.headers })).statusCode).toBe(409);

    // The recovery job asks the acquirer's record (here the sandbox's ledger, answering again).
    expect((await advance(1)).statusCode).toBe(200);
    expect(await list(paymentId)).toEqual([{ ...refund, status: 'Succeeded' }]);
    expect(await payment(paymentId)).toMatchObject({ status: 'Authorized', refundedAmount: 4000 });
    expect(await ledger(paymentId)).toEqual([{ amount: 4000, outcome: 'refunded' }]);
    expect(acquirer.refunds).toBe(1);
    // Settled: the next refund goes through.
    expect((await t.inject({ method: 'POST', url: `/gateway/v1/payments/${paymentId}/refunds`, headers: m.headers, payload: { amount: 1000 } })).json().status).toBe('Succeeded');
    expect(await payment(paymentId)).toMatchObject({ refundedAmount: 5000 });
  });

  it('a refund the acquirer never received fails once nothing can be in flight: nothing refunded, and a late arrival is refused', async () => {
    const { paymentId } = await pay(t, m, { amount: 10000, installments: 1 });
    const refund = await refundVia(lossy({ reaches: false }), paymentId, 2500);
    expect(refund.status).toBe('Pending');
    expect((await advance(1)).statusCode).toBe(200);
    expect(await list(paymentId)).toEqual([{ ...refund, status: 'Failed', returnMessage: 'The acquirer has no record of the refund; nothing was refunded' }]);
    expect(await payment(paymentId)).toMatchObject({ status: 'Authorized', refundedAmount: 0 });
    // The sandbox holds the key as closed: the refund, should it arrive now, is refused.
    expect(await ledger(paymentId)).toEqual([{ amount: 2500, outcome: 'failed' }]);
    const request: RefundRequest = { merchantId: m.merchantId, acquirerReference: `sbx_${paymentId}`, amount: 2500, refundedBefore: 0 };
    expect(await sandbox.refund(request, { idempotencyKey: refund.refundId })).toMatchObject({ outcome: 'failed' });
    expect(await ledger(paymentId)).toHaveLength(1);
  });

  it('a refund that never left (connection refused) fails at once, without a lookup', async () => {
    const { paymentId } = await pay(t, m, { amount: 10000, installments: 1 });
    const acquirer = lossy({ reaches: false, sent: false });
    expect(await refundVia(acquirer, paymentId, 1000)).toMatchObject({ status: 'Failed', returnMessage: 'The acquirer could not be reached; nothing was sent or refunded' });
    expect(acquirer.lookups).toBe(0);
    expect(await ledger(paymentId)).toEqual([]);
  });

  it('a recovery that cannot ask keeps asking, and believes "no record" only after the settle window', async () => {
    const { paymentId } = await pay(t, m, { amount: 10000, installments: 1 });
    const faulty = lossy({ reaches: false, lookups: 'fail' });
    const service = new PaymentService(t.ctx, faulty);
    const refund = await service.refunds.create(m.merchantId, paymentId, { amount: 1000 });
    expect(refund.status).toBe('Pending');
    for (let i = 0; i < 3; i++) await expect(service.refunds.recover(refund.refundId)).rejects.toThrow(AcquirerUnavailable);
    expect((await list(paymentId))[0].status).toBe('Pending');

    const slow = new PaymentService(t.ctx, lossy({ reaches: false, windowMs: 60_000 }));
    await expect(slow.refunds.recover(refund.refundId)).rejects.toBeInstanceOf(RetryLater);
    expect((await list(paymentId))[0].status).toBe('Pending');
    await t.ctx.database.db.updateTable('payment_refunds').set({ acquirer_sent_at: new Date(Date.now() - 61_000).toISOString() }).where('refund_id', '=', refund.refundId).execute();
    await slow.refunds.recover(refund.refundId);
    expect((await list(paymentId))[0]).toMatchObject({ status: 'Failed' });
    // Recorded: its recovery job is gone with it.
    expect(await recoveryJobs(refund.refundId)).toEqual([]);
  });

  it('leaves no recovery job behind for a refund answered at once', async () => {
    const { paymentId } = await pay(t, m, { amount: 10000, installments: 1 });
    const res = await t.inject({ method: 'POST', url: `/gateway/v1/payments/${paymentId}/refunds`, headers: m.headers, payload: { amount: 100 } });
    expect(await recoveryJobs(res.json().refundId)).toEqual([]);
  });

  it('of two refunds of one payment sent at the same moment, one is made and the other refused (one in flight at a time)', async () => {
    const { paymentId } = await pay(t, m, { amount: 10000, installments: 1 });
    // The first one's answer is lost (Pending), so it is still in flight when the second arrives.
    const stuck = lossy({ reaches: true, lookups: 'fail' });
    const service = new PaymentService(t.ctx, stuck);
    const results = await Promise.allSettled([service.refunds.create(m.merchantId, paymentId, { amount: 6000 }), service.refunds.create(m.merchantId, paymentId, { amount: 6000 })]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason.kind).toBe('conflict');
    expect(await ledger(paymentId)).toEqual([{ amount: 6000, outcome: 'refunded' }]);
  });
});
