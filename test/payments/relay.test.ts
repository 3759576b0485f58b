import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { cardNumber, paymentBody, vault } from '../support/cards.js';
import { subscribed, webhookMerchant } from '../webhooks/support.js';
import { liftVelocity } from '../recurrence/support.js';
import { relayBatch } from '../../src/modules/payments/relay.js';

const PAY = '/gateway/v1/payments';

/**
 * The payments relay (src/modules/payments/relay.ts): a sale's notifications and receivables are
 * made after its answer, in batches, all of a batch or none of it; a later change of the payment
 * relays what it still has pending first; two relayers never make one event's effects twice.
 * Payments are made with the app's own inject, which leaves the relay to the test (the harness's
 * inject drains it after each request).
 */
describe(`the payments relay (${testDialect})`, () => {
  let t: TestApp;
  let m: Awaited<ReturnType<typeof webhookMerchant>>;
  let cards: string[];
  beforeAll(async () => {
    t = await testApp();
    m = await webhookMerchant(t);
    await liftVelocity(t, m);
    await subscribed(t, m, 'https://merchant.example/hooks');
    cards = [];
    for (let i = 0; i < 12; i++) cards.push(await vault(t, m, cardNumber(`4111${String(i).padStart(3, '0')}`)));
  });
  afterAll(() => t.close());

  const db = () => t.ctx.database.db;
  const deps = () => ({ database: t.ctx.database, queue: t.ctx.queue, settlement: t.ctx.settlement, cards: t.ctx.cards });
  let nextCard = 0;
  /** A payment whose relay has not run. */
  const sale = async (): Promise<string> => {
    const res = await t.app.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ vaultId: cards[nextCard++ % cards.length] }, { urlCallBack: 'https://merchant.example/cb' }) });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().status).toBe('Authorized');
    return res.json().paymentId;
  };
  const receivables = async (paymentId: string) => (await db().selectFrom('receivables').select('installment_status').where('source_id', '=', paymentId).execute()).map((r) => r.installment_status);
  /** The payment's notifications in the order they were written: TransactionStatus values and callback statuses. */
  const notices = async (paymentId: string, nsu: string) =>
    (await db().selectFrom('webhook_notifications').select(['type', 'payload']).where('merchant_id', '=', m.merchantId).orderBy('id').execute())
      .map((n) => ({ type: n.type, body: JSON.parse(n.payload) }))
      .filter((n) => n.body.paymentId === paymentId || n.body.nsu === nsu || n.body.data?.paymentId === paymentId)
      .map((n) => `${n.type}:${n.body.newValue ?? n.body.status ?? n.body.data?.status}`);
  const unrelayed = async (paymentId: string) => (await db().selectFrom('payment_events').select('id').where('payment_id', '=', paymentId).where('relayed', '=', 0).execute()).length;

  it('the answer comes first; the relay then makes the notifications and receivables of the sale, once', async () => {
    const paymentId = await sale();
    const { nsu } = (await t.inject({ method: 'GET', url: `${PAY}/${paymentId}`, headers: m.headers })).json();
    await t.ctx.payments.settleBackground();
    expect(await receivables(paymentId)).toEqual(['A']);
    expect(await notices(paymentId, nsu)).toEqual(['TransactionStatus:Authorized', 'PaymentStatus:Authorized']);
    expect(await unrelayed(paymentId)).toBe(0);
    // A second pass finds nothing to do.
    expect(await relayBatch(deps())).toBe(0);
    expect(await receivables(paymentId)).toEqual(['A']);
  });

  it('a batch that fails writes nothing of it; the events stay to relay and the next pass makes them', async () => {
    const [a, b] = [await sale(), await sale()];
    const settlement = t.ctx.settlement;
    const original = settlement.onPaymentsAuthorized;
    settlement.onPaymentsAuthorized = async () => {
      throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    };
    try {
      await expect(relayBatch(deps())).rejects.toThrow(/administrator command/);
    } finally {
      settlement.onPaymentsAuthorized = original;
    }
    for (const id of [a, b]) {
      expect(await unrelayed(id)).toBe(1);
      expect(await receivables(id)).toEqual([]);
    }
    expect(await db().selectFrom('webhook_notifications').select('id').where('payload', 'like', `%${a}%`).execute()).toEqual([]);
    for (const id of [a, b]) {
      const { nsu } = (await t.inject({ method: 'GET', url: `${PAY}/${id}`, headers: m.headers })).json();
      // The harness's inject drained the relay: made now, once.
      expect(await notices(id, nsu)).toEqual(['TransactionStatus:Authorized', 'PaymentStatus:Authorized']);
      expect(await receivables(id)).toEqual(['A']);
    }
  });

  it('a refund right after the sale, before any relay pass: it finds its receivables, and its notifications come after the sale', async () => {
    const paymentId = await sale();
    const refund = await t.app.inject({ method: 'POST', url: `${PAY}/${paymentId}/refunds`, headers: m.headers, payload: { amount: 10000 } });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(await unrelayed(paymentId)).toBe(0);
    const rows = await db().selectFrom('receivables').select(['installment_status']).where('source_id', '=', paymentId).execute();
    expect(rows.map((r) => r.installment_status)).toEqual(['C']);
    const { nsu } = (await t.app.inject({ method: 'GET', url: `${PAY}/${paymentId}`, headers: m.headers })).json();
    const seen = await notices(paymentId, nsu);
    expect(seen.slice(0, 2)).toEqual(['TransactionStatus:Authorized', 'PaymentStatus:Authorized']);
    expect(seen).toContain('TransactionStatus:Canceled');
  });

  it('a cancel right after the sale: the sale is relayed first, then canceled with its installments', async () => {
    const paymentId = await sale();
    const cancel = await t.app.inject({ method: 'POST', url: `${PAY}/${paymentId}/cancel`, headers: m.headers });
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect(await receivables(paymentId)).toEqual(['C']);
    const { nsu } = (await t.app.inject({ method: 'GET', url: `${PAY}/${paymentId}`, headers: m.headers })).json();
    const seen = (await notices(paymentId, nsu)).filter((n) => n.startsWith('TransactionStatus'));
    expect(seen).toEqual(['TransactionStatus:Authorized', 'TransactionStatus:Canceled']);
  });

  it('relayers running at once (two instances) make each event effective exactly once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await sale());
    const passes = await Promise.all(Array.from({ length: 4 }, () => relayBatch(deps())));
    expect(passes.reduce((sum, n) => sum + n, 0)).toBe(10);
    for (const id of ids) {
      expect(await receivables(id)).toEqual(['A']);
      const { nsu } = (await t.app.inject({ method: 'GET', url: `${PAY}/${id}`, headers: m.headers })).json();
      expect(await notices(id, nsu)).toEqual(['TransactionStatus:Authorized', 'PaymentStatus:Authorized']);
    }
  });
});
