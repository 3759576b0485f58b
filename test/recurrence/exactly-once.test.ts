import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/root/context.js';
import { Worker } from '../../src/jobs/worker.js';
import { createLogger } from '../../src/logger.js';
import { billingsRepository } from '../../src/modules/recurrence/billings-repository.js';
import { CHARGE_JOB, chargeKey } from '../../src/modules/recurrence/engine.js';
import { RECURRENCE_ANTIFRAUD_CODE } from '../../src/modules/recurrence/charge-attempt.js';
import { AcquirerUnavailable } from '../../src/acquirer/types.js';
import { PaymentService } from '../../src/modules/payments/service.js';
import { secondConnection, testDialect, type TestDatabase } from '../support/database.js';
import { vault } from '../support/cards.js';
import { liftVelocity } from './support.js';
import { world, type World } from './world.js';

/**
 * A billing attempt is charged once, whatever runs its job: a duplicate job (a second
 * scheduler tick), a run that died half-way (a restart), or two instances on one database.
 */
describe(`recurrence charges exactly once (${testDialect})`, () => {
  let w: World;
  const extra: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const c of extra.splice(0)) await c.close();
    await w.t.close();
  });

  const db = () => w.t.ctx.database.db;
  const authorizeCalls = () => w.t.ctx.acquirer.sandbox.authorizeCalls;

  /** A charge job for the same attempt that the dedupe key did not stop (another key, as a buggy second scheduler would write). */
  async function duplicateJob(billingId: string, copy = 1) {
    await w.t.ctx.queue.enqueue(db(), { kind: CHARGE_JOB, payload: { billingId, attempt: 0 }, dedupeKey: `${chargeKey(billingId, 0)}:copy${copy}` });
  }

  it('enqueues one job per attempt: the same dedupe key twice is one job', async () => {
    w = await world();
    await w.api.subscribe(await w.api.plan({ trialDays: 3 }), w.vaultId);
    const [billing] = await w.api.billings();
    expect(await w.t.ctx.queue.enqueue(db(), { kind: CHARGE_JOB, payload: { billingId: billing.id, attempt: 0 }, dedupeKey: chargeKey(billing.id, 0) })).toBeNull();
    const jobs = await db().selectFrom('jobs').select(['run_at', 'dedupe_key']).where('kind', '=', CHARGE_JOB).execute();
    expect(jobs).toEqual([{ run_at: billing.expireAt, dedupe_key: chargeKey(billing.id, 0) }]);
  });

  it('charges once when two jobs run the same attempt one after the other', async () => {
    w = await world();
    await w.api.subscribe(await w.api.plan(), w.vaultId);
    const [billing] = await w.api.billings();
    await duplicateJob(billing.id, 1);
    await duplicateJob(billing.id, 2);
    const before = authorizeCalls();
    const { jobsRun } = await w.clk.runDue();
    expect(jobsRun).toBe(3);
    expect(await w.api.payments(billing.id)).toHaveLength(1);
    expect(authorizeCalls() - before).toBe(1);
    expect(await w.api.billing(billing.id)).toMatchObject({ status: 'Paid', attemptsHistory: [{ returnCode: '00' }] });
    expect((await w.api.billings()).map((b) => b.installment)).toEqual([1, 2]);
  });

  it('a fault after the acquirer charged (the outcome cannot be recorded): the claim stays, the rerun reads the charge back and charges once', async () => {
    w = await world();
    await w.api.subscribe(await w.api.plan({ trialDays: 1 }), w.vaultId);
    const [billing] = await w.api.billings();
    const ledger = () => db().selectFrom('sandbox_acquirer_ledger').select('idempotency_key').execute();
    const charged = (await ledger()).length;
    // The last write of the outcome's transaction (the next billing) fails.
    const issue = billingsRepository.insertIfAbsent;
    billingsRepository.insertIfAbsent = async () => {
      throw new Error('injected: the next billing cannot be written');
    };
    try {
      await expect(w.t.ctx.recurrence.engine.charge({ billingId: billing.id, attempt: 0 })).rejects.toThrow(/injected/);
    } finally {
      billingsRepository.insertIfAbsent = issue;
    }
    // The claim and the payment were committed before the acquirer was called; the outcome was not.
    const row = await db().selectFrom('billings').select(['status', 'attempts_made', 'charging_payment_id']).where('billing_id', '=', billing.id).executeTakeFirstOrThrow();
    expect({ status: row.status, attempts_made: Number(row.attempts_made) }).toEqual({ status: 'Opened', attempts_made: 1 });
    expect(row.charging_payment_id).not.toBeNull();
    expect(await w.api.payments(billing.id)).toMatchObject([{ status: 'Authorized', payment_id: row.charging_payment_id }]);
    expect(await ledger()).toHaveLength(charged + 1);

    await w.clk.days(1);
    expect(await w.api.payments(billing.id)).toMatchObject([{ status: 'Authorized' }]);
    expect(await ledger()).toHaveLength(charged + 1);
    // The name recorded and sent is the stored card's.
    const { cardholder_name } = await db().selectFrom('vault_cards').select('cardholder_name').where('vault_id', '=', w.vaultId).executeTakeFirstOrThrow();
    expect(await db().selectFrom('payments').select('cardholder_name').where('billing_id', '=', billing.id).execute()).toEqual([{ cardholder_name }]);
    expect(await w.api.billing(billing.id)).toMatchObject({ status: 'Paid', attemptsHistory: [{ returnCode: '00' }] });
    expect((await w.api.billings()).map((b) => b.installment)).toEqual([1, 2]);
  });

  it('a stored card deleted before the charge is not charged: the billing is PaymentInvalid (14)', async () => {
    w = await world();
    await w.api.subscribe(await w.api.plan({ trialDays: 1 }), w.vaultId);
    const [billing] = await w.api.billings();
    expect((await w.t.inject({ method: 'DELETE', url: `/gateway/v1/vaults/cards/${w.vaultId}`, headers: w.m.headers })).statusCode).toBe(200);
    const before = authorizeCalls();
    await w.clk.days(1);
    expect(authorizeCalls()).toBe(before);
    expect(await w.api.payments(billing.id)).toEqual([]);
    expect(await w.api.billing(billing.id)).toMatchObject({ status: 'PaymentInvalid', attemptsHistory: [{ returnCode: '14', paymentId: null }] });
  });

  it('a subscription cancelled while its billing is charged: the next billing it issued is cancelled', async () => {
    w = await world();
    const subscriptionId = await w.api.subscribe(await w.api.plan({ trialDays: 1 }), w.vaultId);
    const [billing] = await w.api.billings();
    // Inside the charge's transaction, as it issues the next billing, the merchant cancels.
    const issue = billingsRepository.insertIfAbsent;
    let cancel: Promise<unknown> | undefined;
    billingsRepository.insertIfAbsent = async (...args) => {
      cancel = w.api.post(`/gateway/v1/recurrences/subscriptions/${subscriptionId}/status`, { status: 'Canceled' });
      await new Promise((r) => setTimeout(r, 300));
      return issue.apply(billingsRepository, args);
    };
    try {
      await w.clk.days(1);
    } finally {
      billingsRepository.insertIfAbsent = issue;
    }
    expect(cancel).toBeDefined();
    expect(((await cancel) as { statusCode: number }).statusCode).toBe(200);
    expect(await w.api.billing(billing.id)).toMatchObject({ status: 'Paid' });
    const next = (await w.api.billings()).find((b) => b.installment === 2);
    expect(next).toMatchObject({ status: 'Canceled' });
  });

  it('a subscription stopped after the charge job read it, before its transaction: the claim rolls back, nothing is charged, the billing is Canceled', async () => {
    w = await world();
    const subscriptionId = await w.api.subscribe(await w.api.plan({ trialDays: 1 }), w.vaultId);
    const [billing] = await w.api.billings();
    // The job reads the billing and its subscription (Active); the subscription stops right after,
    // with its Opened billing left as it was (as if the cancel's own update had not reached it yet).
    const load = billingsRepository.loadForChargeMany;
    billingsRepository.loadForChargeMany = async (...args) => {
      const states = await load.apply(billingsRepository, args);
      await db().updateTable('subscriptions').set({ status: 'Canceled' }).where('subscription_id', '=', subscriptionId).execute();
      return states;
    };
    const before = authorizeCalls();
    try {
      await w.clk.days(1);
    } finally {
      billingsRepository.loadForChargeMany = load;
    }
    expect(authorizeCalls()).toBe(before);
    expect(await w.api.payments(billing.id)).toEqual([]);
    const row = await db().selectFrom('billings').select(['status', 'attempts_made', 'charging_payment_id']).where('billing_id', '=', billing.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'Canceled', attempts_made: 0, charging_payment_id: null });
  });

  it('resumes an attempt whose run died after paying: the payment is read back, not made again', async () => {
    w = await world();
    await w.api.subscribe(await w.api.plan({ trialDays: 1 }), w.vaultId);
    const [billing] = await w.api.billings();
    // The dead run: it claimed attempt 0 under a payment id and paid, then the process stopped.
    const paymentId = '6f1c2a52-8c0e-4c1e-9a4e-2d7f3b9e0a11';
    expect(await billingsRepository.claim(db(), billing.id, 0, paymentId, w.clk.now().toISOString())).toBe(true);
    const paid = await w.t.ctx.payments.create(
      { merchantId: w.m.merchantId, accountNumber: w.m.accountNumber },
      {
        payment: { transactionType: 'credit', amount: 1260, productType: 'avista', installments: 1 },
        sellerInfo: { codeAntiFraud: RECURRENCE_ANTIFRAUD_CODE },
        cardInfo: { vaultId: w.vaultId, cardholderName: 'MARIA SILVA' },
      },
      { billingId: billing.id, paymentId },
    );
    expect(paid.kind).toBe('recorded');
    // The claim blocks anyone else meanwhile, the merchant's cancel included.
    expect((await w.api.post(`/gateway/v1/recurrences/billing/${billing.id}/cancel`)).statusCode).toBe(409);
    const before = authorizeCalls();

    await w.clk.days(1); // the job runs (as after a restart), finds the attempt claimed
    expect(authorizeCalls()).toBe(before);
    expect(await w.api.payments(billing.id)).toMatchObject([{ payment_id: paymentId, status: 'Authorized' }]);
    expect(await w.api.billing(billing.id)).toMatchObject({ status: 'Paid', attemptsHistory: [{ returnCode: '00', paymentId }] });
  });

  it('resumes an attempt whose run died before paying: it pays once, under the claimed id', async () => {
    w = await world();
    await w.api.subscribe(await w.api.plan({ trialDays: 1 }), w.vaultId);
    const [billing] = await w.api.billings();
    const paymentId = '0b9d6a3e-1f2c-4d5e-8f70-9a1b2c3d4e5f';
    await billingsRepository.claim(db(), billing.id, 0, paymentId, w.clk.now().toISOString());
    await w.clk.days(1);
    expect(await w.api.payments(billing.id)).toMatchObject([{ payment_id: paymentId, status: 'Authorized' }]);
    expect((await w.api.billing(billing.id)).status).toBe('Paid');
  });

  /** The dead run got as far as recording its payment (Pending) and died before or while sending it. */
  async function pendingBillingPayment(billingId: string, paymentId: string, reaches: boolean) {
    expect(await billingsRepository.claim(db(), billingId, 0, paymentId, w.clk.now().toISOString())).toBe(true);
    const sandbox = w.t.ctx.acquirer.sandbox;
    const dying = new PaymentService(w.t.ctx, {
      authorize: async (request, context) => {
        if (reaches) await sandbox.authorize(request, context);
        throw new AcquirerUnavailable(true, 'process killed');
      },
      cancel: (request, context) => sandbox.cancel(request, context),
      refund: (request, context) => sandbox.refund(request, context),
      lookupRefund: (request, context) => sandbox.lookupRefund(request, context),
      // Its at-once lookups die with it.
      lookup: async () => {
        throw new AcquirerUnavailable(true, 'process killed');
      },
      settleWindowMs: async () => 0,
    });
    const outcome = await dying.create(
      { merchantId: w.m.merchantId, accountNumber: w.m.accountNumber },
      { payment: { transactionType: 'credit', amount: 1260, productType: 'avista', installments: 1 }, sellerInfo: { codeAntiFraud: RECURRENCE_ANTIFRAUD_CODE }, cardInfo: { vaultId: w.vaultId, cardholderName: 'MARIA SILVA' } },
      { billingId, paymentId },
    );
    expect(outcome.kind).toMatch(/^(unknown|failed)$/); // a 502
    expect(await w.api.payments(billingId)).toMatchObject([{ payment_id: paymentId, status: 'Pending' }]);
    // The billing's charge job is the payment's recovery: no payment.recover job is written for it.
    expect(await db().selectFrom('jobs').select('id').where('dedupe_key', '=', `payment.recover:${paymentId}`).execute()).toEqual([]);
  }

  it('resumes an attempt whose payment was sent but not recorded: settled from the acquirer ledger, never sent again', async () => {
    w = await world();
    await w.api.subscribe(await w.api.plan({ trialDays: 1 }), w.vaultId);
    const [billing] = await w.api.billings();
    const paymentId = '3c0a1d2e-4b5f-4a6b-8c7d-9e0f1a2b3c4d';
    await pendingBillingPayment(billing.id, paymentId, true);
    const before = authorizeCalls();
    await w.clk.days(1);
    expect(authorizeCalls()).toBe(before);
    expect(await w.api.payments(billing.id)).toMatchObject([{ payment_id: paymentId, status: 'Authorized' }]);
    expect(await w.api.billing(billing.id)).toMatchObject({ status: 'Paid', attemptsHistory: [{ returnCode: '00', paymentId }] });
  });

  it('resumes an attempt whose payment the acquirer never received: sent again under the same id, once, and Paid (not PaymentInvalid)', async () => {
    w = await world();
    await w.api.subscribe(await w.api.plan({ trialDays: 1 }), w.vaultId);
    const [billing] = await w.api.billings();
    const paymentId = '7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a';
    await pendingBillingPayment(billing.id, paymentId, false);
    // Its own recovery job runs too: it must not record "never received" for a billing's payment.
    await w.t.ctx.payments.recover(paymentId);
    expect((await w.api.payments(billing.id))[0].status).toBe('Pending');
    const before = authorizeCalls();
    await w.clk.days(1);
    expect(authorizeCalls() - before).toBe(1);
    const ledger = await db().selectFrom('sandbox_acquirer_ledger').select('idempotency_key').where('idempotency_key', '=', paymentId).execute();
    expect(ledger).toHaveLength(1);
    expect(await w.api.payments(billing.id)).toMatchObject([{ payment_id: paymentId, status: 'Authorized' }]);
    expect((await w.api.billing(billing.id)).status).toBe('Paid');
  });

  it('does not charge a claimed attempt whose run died before paying when the subscription was cancelled since', async () => {
    w = await world();
    const subscriptionId = await w.api.subscribe(await w.api.plan({ trialDays: 1 }), w.vaultId);
    const [billing] = await w.api.billings();
    await billingsRepository.claim(db(), billing.id, 0, 'a4f1e0c2-3b5d-4e6f-8a7b-9c0d1e2f3a4b', w.clk.now().toISOString());
    await w.api.post(`/gateway/v1/recurrences/subscriptions/${subscriptionId}/status`, { status: 'Canceled' });
    await w.clk.days(1);
    expect(await w.api.payments(billing.id)).toEqual([]);
    expect((await w.api.billing(billing.id)).status).toBe('Canceled');
  });

  it.runIf(testDialect === 'postgres')('two instances on two pools, each with its own queue and worker, charge each due billing exactly once', async () => {
    // Small billing lanes, so that each instance claims a few batches and both take part.
    const lanes = { BILLING_CONCURRENCY: '6' };
    w = await world({ env: lanes });
    await liftVelocity(w.t, w.m);
    const planId = await w.api.plan();
    const N = 30;
    const billingIds: string[] = [];
    for (let i = 0; i < N; i++) {
      const card = i % 2 === 0 ? w.vaultId : await vault(w.t, w.m, '5555555555554444');
      await w.api.subscribe(planId, card, `N${i}`);
    }
    for (const b of await w.api.billings()) {
      billingIds.push(b.id);
      // A second job per billing attempt too: the billing row, not only the queue, must hold.
      await duplicateJob(b.id);
    }
    expect(billingIds).toHaveLength(N);

    // A second instance of the service: its own pool, context, queue and worker, same schema.
    const otherDb = await secondConnection(w.t.ctx.database as TestDatabase);
    const config = loadConfig({ GATEWAY_MODE: 'sandbox', ADMIN_API_KEY: 'test-admin-key-0123456789abcdef0123', PASSWORD_HASH_COST: '10', LOG_LEVEL: 'silent', ...lanes });
    const other: AppContext = await createContext(config, { database: otherDb, logger: createLogger('silent') });
    extra.push({ close: () => otherDb.close() });
    const workers = [
      new Worker(w.t.ctx.queue, w.t.ctx.handlers, w.t.ctx.clock, { pollMs: 2, concurrency: 6, workerId: 'instance-a' }),
      new Worker(other.queue, other.handlers, other.clock, { pollMs: 2, concurrency: 6, workerId: 'instance-b' }),
    ];
    workers.forEach((worker) => worker.start());
    try {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const open = await db().selectFrom('jobs').select('id').where('kind', '=', CHARGE_JOB).where('status', 'in', ['pending', 'running']).where('run_at', '<=', new Date().toISOString()).execute();
        if (open.length === 0) break;
        if (Date.now() > deadline) throw new Error(`${open.length} charge jobs still open`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
    }

    const perBilling = await db()
      .selectFrom('payments')
      .select(['billing_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('billing_id', 'in', billingIds)
      .groupBy('billing_id')
      .execute();
    expect(perBilling).toHaveLength(N);
    expect(perBilling.every((r) => Number(r.n) === 1)).toBe(true);
    const billings = await db().selectFrom('billings').select(['billing_id', 'status', 'attempts_history']).where('billing_id', 'in', billingIds).execute();
    expect(billings.every((b) => b.status === 'Paid' && JSON.parse(b.attempts_history).length === 1)).toBe(true);
    // Each subscription got exactly one billing 2.
    const seconds = await db().selectFrom('billings').select('subscription_id').where('installment', '=', 2).where('merchant_id', '=', w.m.merchantId).execute();
    expect(seconds).toHaveLength(N);
    const ran = await db().selectFrom('jobs').select(['locked_by']).where('kind', '=', CHARGE_JOB).where('status', '=', 'done').execute();
    expect(new Set(ran.map((j) => j.locked_by))).toEqual(new Set(['instance-a', 'instance-b']));
  });
});
