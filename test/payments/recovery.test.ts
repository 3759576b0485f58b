import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { paymentBody, vault } from '../support/cards.js';
import type { SandboxAcquirer } from '../../src/acquirer/sandbox/acquirer.js';
import { AcquirerUnavailable, type Acquirer } from '../../src/acquirer/types.js';
import { PaymentService } from '../../src/modules/payments/service.js';
import { paymentsRepository } from '../../src/modules/payments/repository.js';
import { RetryLater } from '../../src/jobs/registry.js';

/**
 * Write the local record first, call the acquirer, record the outcome. An answer that does not
 * come is never a decline: the sale is looked up at once, and a payment still unknown stays
 * Pending until the acquirer's own (durable) record settles it, never authorizing twice.
 */
describe(`payment crash recovery (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let sandbox: SandboxAcquirer;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    sandbox = t.ctx.acquirer.sandbox;
  });
  afterAll(() => t.close());

  /** The sandbox behind a faulty line: the authorization reaches it (or not) and its answer is lost; lookups may fail too. */
  const lossy = (options: { reaches: boolean; sent?: boolean; lookups?: 'work' | 'fail' }): Acquirer & { lookups: number } => {
    const acquirer = {
      lookups: 0,
      authorize: async (request: Parameters<Acquirer['authorize']>[0], context: Parameters<Acquirer['authorize']>[1]) => {
        if (options.reaches) await sandbox.authorize(request, context);
        throw new AcquirerUnavailable(options.sent ?? true, 'socket hang up');
      },
      cancel: (request: Parameters<Acquirer['cancel']>[0], context: Parameters<Acquirer['cancel']>[1]) => sandbox.cancel(request, context),
      refund: (request: Parameters<Acquirer['refund']>[0], context: Parameters<Acquirer['refund']>[1]) => sandbox.refund(request, context),
      lookupRefund: (request: Parameters<Acquirer['refund']>[0], context: Parameters<Acquirer['refund']>[1]) => sandbox.lookupRefund(request, context),
      lookup: async (request: Parameters<Acquirer['lookup']>[0]) => {
        acquirer.lookups += 1;
        if (options.lookups === 'fail') throw new AcquirerUnavailable(true, 'query down');
        return sandbox.lookup(request);
      },
      settleWindowMs: async () => 0,
    };
    return acquirer;
  };

  async function pay(acquirer: Acquirer) {
    const service = new PaymentService(t.ctx, acquirer);
    const vaultId = await vault(t, m, '4111111111111111');
    return service.create(m, paymentBody({ vaultId }) as never);
  }
  const latestPayment = () => t.ctx.database.db.selectFrom('payments').selectAll().where('merchant_id', '=', m.merchantId).orderBy('created_at', 'desc').orderBy('payment_id').executeTakeFirstOrThrow();
  const ledger = (paymentId: string) => t.ctx.database.db.selectFrom('sandbox_acquirer_ledger').selectAll().where('idempotency_key', '=', paymentId).execute();
  const advance = (minutes: number) => t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes } });
  const status = async (paymentId: string) => (await t.inject({ method: 'GET', url: `/gateway/v1/payments/${paymentId}`, headers: m.headers })).json();
  const events = async (paymentId: string) =>
    (await t.ctx.database.db.selectFrom('payment_events').select('new_status').where('payment_id', '=', paymentId).execute()).map((e) => e.new_status);

  it('a lost answer is looked up before the caller is answered: 201 Authorized, one authorization', async () => {
    const acquirer = lossy({ reaches: true });
    const outcome = await pay(acquirer);
    expect(outcome.kind).toBe('recorded');
    const body = (outcome as { payment: { paymentId: string; status: string; returnCode: string } }).payment;
    expect(body).toMatchObject({ status: 'Authorized', returnCode: '00' });
    expect(acquirer.lookups).toBe(1);
    expect(await ledger(body.paymentId)).toHaveLength(1);
    expect(await events(body.paymentId)).toEqual(['Authorized']);
  });

  it('a lost answer the lookups cannot settle stays Pending (502), then the recovery job settles it from the durable ledger', async () => {
    const outcome = await pay(lossy({ reaches: true, lookups: 'fail' }));
    expect(outcome.kind).toMatch(/^(unknown|failed)$/); // a 502
    expect((outcome as { error: { errors: { tag: string }[] } }).error.errors[0].tag).toBe('acquirer_unavailable');
    const row = await latestPayment();
    expect(row.status).toBe('Pending');
    await advance(1);
    const settled = await status(row.payment_id);
    expect(settled).toMatchObject({ status: 'Authorized', returnCode: '00' });
    expect(settled.authorizationCode).toMatch(/^[A-Z0-9]{6}$/);
    expect(await ledger(row.payment_id)).toHaveLength(1);
    expect(await events(row.payment_id)).toEqual(['Authorized']);
  });

  it('a send with no record at the acquirer is settled as Denied 96 (nothing charged) only by the acquirer saying so', async () => {
    const outcome = await pay(lossy({ reaches: false }));
    expect(outcome.kind).toMatch(/^(unknown|failed)$/); // a 502
    const row = await latestPayment();
    expect(row.status).toBe('Pending');
    await advance(1);
    expect(await status(row.payment_id)).toMatchObject({ status: 'Denied', returnCode: '96', nsu: null });
    // Nothing was charged: the sandbox holds the key only as closed (failed 96, no authorization),
    // so a send still on its way under it is refused instead of approved after the fact.
    expect(await ledger(row.payment_id)).toMatchObject([{ outcome: 'failed', return_code: '96', authorization_code: null, nsu: null }]);
    const before = sandbox.authorizeCalls;
    const late = await sandbox.authorize(
      { merchantId: m.merchantId, amount: 1, installments: 1, productType: 'avista', card: { pan: '4111111111111111', brand: 'visa', expMonth: '12', expYear: '2035', holderName: 'X' } },
      { idempotencyKey: row.payment_id },
    );
    expect(late).toMatchObject({ outcome: 'failed', returnCode: '96' });
    expect(sandbox.authorizeCalls).toBe(before);
    expect(await ledger(row.payment_id)).toHaveLength(1);
  });

  it('a request that never left (connection refused) is Denied 96 at once: 502, nothing sent', async () => {
    const acquirer = lossy({ reaches: false, sent: false });
    const outcome = await pay(acquirer);
    expect(outcome.kind).toMatch(/^(unknown|failed)$/); // a 502
    expect((outcome as { error: { errors: { tag: string; description: string }[] } }).error.errors[0]).toMatchObject({ tag: 'acquirer_failure' });
    const row = await latestPayment();
    expect(row).toMatchObject({ status: 'Denied', return_code: '96' });
    expect(acquirer.lookups).toBe(0);
  });

  it('a recovery that cannot ask the acquirer keeps asking with backoff and never records "not received"', async () => {
    const faulty = lossy({ reaches: true, lookups: 'fail' });
    const service = new PaymentService(t.ctx, faulty);
    const vaultId = await vault(t, m, '4111111111111111');
    expect((await service.create(m, paymentBody({ vaultId }) as never)).kind).toMatch(/^(unknown|failed)$/); // a 502
    const row = await latestPayment();
    // The recovery job of the faulty line, run by hand three times: each try fails and is retried later.
    for (let i = 0; i < 3; i++) await expect(service.recover(row.payment_id)).rejects.toThrow(AcquirerUnavailable);
    expect((await status(row.payment_id)).status).toBe('Pending');
    // The acquirer answers again: the real recovery job settles it as what was sent.
    await advance(1);
    expect((await status(row.payment_id)).status).toBe('Authorized');
    const job = await t.ctx.database.db.selectFrom('jobs').select('id').where('dedupe_key', '=', `payment.recover:${row.payment_id}`).where('status', '=', 'pending').execute();
    expect(job).toEqual([]);
  });

  it('the sandbox ledger answers a repeated key with the first answer and never authorizes twice', async () => {
    const vaultId = await vault(t, m, '4111111111111111');
    const res = await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: paymentBody({ vaultId }) });
    const { paymentId, authorizationCode, nsu } = res.json();
    const before = sandbox.authorizeCalls;
    const again = await sandbox.authorize(
      { merchantId: m.merchantId, amount: 1, installments: 1, productType: 'avista', card: { pan: '4000000000000002', brand: 'visa', expMonth: '12', expYear: '2035', holderName: 'X' } },
      { idempotencyKey: paymentId },
    );
    expect(again).toMatchObject({ outcome: 'approved', authorizationCode, nsu });
    expect(sandbox.authorizeCalls).toBe(before);
    expect(await ledger(paymentId)).toHaveLength(1);
  });

  it('believes "no such sale" only once the settle window since the last send is over', async () => {
    const slow = { ...lossy({ reaches: false }), settleWindowMs: async () => 60_000 };
    const service = new PaymentService(t.ctx, slow);
    const vaultId = await vault(t, m, '4111111111111111');
    expect((await service.create(m, paymentBody({ vaultId }) as never)).kind).toMatch(/^(unknown|failed)$/); // a 502
    const row = await latestPayment();
    // Within the window a send may still be in flight: the job is put back, nothing is recorded.
    await expect(service.recover(row.payment_id)).rejects.toBeInstanceOf(RetryLater);
    expect((await status(row.payment_id)).status).toBe('Pending');
    // Sent a minute ago: now the acquirer's "no record" is believed.
    await t.ctx.database.db.updateTable('payments').set({ acquirer_sent_at: new Date(Date.now() - 61_000).toISOString() }).where('payment_id', '=', row.payment_id).execute();
    await service.recover(row.payment_id);
    expect(await status(row.payment_id)).toMatchObject({ status: 'Denied', returnCode: '96' });
  });

  it('of two processes that would send a payment again, exactly one claims the send', async () => {
    const outcome = await pay(lossy({ reaches: false }));
    expect(outcome.kind).toMatch(/^(unknown|failed)$/); // a 502
    const row = await latestPayment();
    const claims = await Promise.all([0, 1].map((i) => paymentsRepository.claimSend(t.ctx.database.db, row.payment_id, row.acquirer_sent_at, new Date(Date.now() + i).toISOString())));
    expect(claims.filter(Boolean)).toHaveLength(1);
  });

  it('leaves no recovery job behind for a payment recorded normally', async () => {
    const vaultId = await vault(t, m, '4111111111111111');
    const res = await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: paymentBody({ vaultId }) });
    const jobs = await t.ctx.database.db.selectFrom('jobs').select('id').where('dedupe_key', '=', `payment.recover:${res.json().paymentId}`).execute();
    expect(jobs).toEqual([]);
  });
});
