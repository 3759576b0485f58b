import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { paymentBody, vault } from '../support/cards.js';
import type { SandboxAcquirer } from '../../src/acquirer/sandbox.js';
import type { Acquirer } from '../../src/acquirer/types.js';
import { PaymentService } from '../../src/modules/payments/service.js';

/**
 * Write the local record first, call the acquirer, record the outcome. A crash between the
 * call and the record leaves the payment Pending; the recovery job settles it from the
 * acquirer's own ledger, never authorizing twice.
 */
describe(`payment crash recovery (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let sandbox: SandboxAcquirer;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    sandbox = t.ctx.acquirer as SandboxAcquirer;
  });
  afterAll(() => t.close());

  /** An acquirer whose answer is lost on the way back (or whose call never leaves). */
  const lossy = (reachesAcquirer: boolean): Acquirer => ({
    authorize: async (request, context) => {
      if (reachesAcquirer) await sandbox.authorize(request, context);
      throw new Error('socket hang up');
    },
    cancel: (request, context) => sandbox.cancel(request, context),
    lookup: (key) => sandbox.lookup(key),
  });

  async function pendingPayment(reachesAcquirer: boolean) {
    const service = new PaymentService(t.ctx, lossy(reachesAcquirer));
    const vaultId = await vault(t, m, '4111111111111111');
    const outcome = await service.create(m, paymentBody({ vaultId }) as never);
    expect(outcome.status).toBe(502);
    const row = await t.ctx.database.db.selectFrom('payments').selectAll().where('merchant_id', '=', m.merchantId).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    expect(row.status).toBe('Pending');
    return row.payment_id;
  }

  const advance = (minutes: number) => t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes } });
  const status = async (paymentId: string) =>
    (await t.inject({ method: 'GET', url: `/gateway/v1/payments/${paymentId}`, headers: m.headers })).json();

  it('settles an authorization whose answer was lost as Authorized, without a second authorization', async () => {
    const before = sandbox.authorizeCalls;
    const paymentId = await pendingPayment(true);
    expect(sandbox.authorizeCalls - before).toBe(1);
    await advance(1);
    expect((await status(paymentId)).status).toBe('Pending'); // not yet: the job waits 2 minutes
    await advance(2);
    const settled = await status(paymentId);
    expect(settled).toMatchObject({ status: 'Authorized', returnCode: '00' });
    expect(settled.authorizationCode).toMatch(/^[A-Z0-9]{6}$/);
    expect(sandbox.authorizeCalls - before).toBe(1);
    const events = await t.ctx.database.db.selectFrom('payment_events').selectAll().where('payment_id', '=', paymentId).execute();
    expect(events.map((e) => e.new_status)).toEqual(['Authorized']);
  });

  it('settles a call that never reached the acquirer as Denied 96 (nothing charged)', async () => {
    const paymentId = await pendingPayment(false);
    await advance(3);
    expect(await status(paymentId)).toMatchObject({ status: 'Denied', returnCode: '96', nsu: null });
  });

  it('leaves no recovery job behind for a payment recorded normally', async () => {
    const vaultId = await vault(t, m, '4111111111111111');
    const res = await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: paymentBody({ vaultId }) });
    const jobs = await t.ctx.database.db.selectFrom('jobs').select('id').where('dedupe_key', '=', `payment.recover:${res.json().paymentId}`).execute();
    expect(jobs).toEqual([]);
  });
});
