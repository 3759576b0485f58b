import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { encryptCard, paymentBody, tokenize, vault } from '../support/cards.js';
import type { SettlementService } from '../../src/modules/settlement/service.js';
import { pgFlightsOf } from '../support/pg-flights.js';
import { subscribed, webhookMerchant } from '../webhooks/support.js';

const PAY = '/gateway/v1/payments';

/**
 * With the sandbox acquirer (its ledger is in the gateway's database) a payment is one
 * transaction: the payment, the ledger row, the outcome with its event and notifications, and
 * the receivables commit together or not at all, and no recovery job is written. A failure
 * after the ledger insert rolls everything back, so a retry under the same payment id charges
 * once. A merchant with a Cielo connection keeps the two-phase path.
 */
describe(`one transaction per payment on the sandbox acquirer (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  const settlement = () => t.ctx.settlement as SettlementService;
  let restore: (() => void) | undefined;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
  });
  afterEach(() => {
    restore?.();
    restore = undefined;
  });
  afterAll(() => t.close());

  const db = () => t.ctx.database.db;
  const ledger = (key: string) => db().selectFrom('sandbox_acquirer_ledger').selectAll().where('idempotency_key', '=', key).execute();
  const recoveryJobs = (paymentId: string) => db().selectFrom('jobs').select(['id', 'status']).where('dedupe_key', '=', `payment.recover:${paymentId}`).execute();
  const events = (paymentId: string) => db().selectFrom('payment_events').select(['old_status', 'new_status']).where('payment_id', '=', paymentId).execute();
  const receivables = (paymentId: string) => db().selectFrom('receivables').select(['installment_status']).where('source_id', '=', paymentId).execute();
  const payments = (merchantId: string) => db().selectFrom('payments').select('payment_id').where('merchant_id', '=', merchantId).execute();
  const ledgerOf = (merchantId: string) => db().selectFrom('sandbox_acquirer_ledger').select('idempotency_key').where('merchant_id', '=', merchantId).execute();
  const outboxOf = (merchantId: string) => db().selectFrom('webhook_notifications').select('id').where('merchant_id', '=', merchantId).execute();

  /** The settlement hook (run after the ledger insert, inside the payment's transaction) throws `error` for the next `times` calls. */
  function failSettlement(error: () => Error, times = 1) {
    const service = settlement();
    const original = service.onPaymentTransition;
    let left = times;
    service.onPaymentTransition = async function (this: SettlementService, ...args: Parameters<SettlementService['onPaymentTransition']>) {
      if (left > 0) {
        left -= 1;
        throw error();
      }
      return original.apply(this, args);
    };
    restore = () => {
      service.onPaymentTransition = original;
    };
  }

  const admin = () => ({ ...t.adminHeaders, 'content-type': 'application/json' });
  const reasonsOf = async (paymentId: string) => JSON.parse((await db().selectFrom('payments').select('antifraud_reasons').where('payment_id', '=', paymentId).executeTakeFirstOrThrow()).antifraud_reasons);
  /** A merchant whose anti-fraud scores a card's third payment within the window (maxPerCard 2). */
  async function scoringThirdPayment(): Promise<TestMerchant> {
    const merchant = await t.merchant();
    const velocity = await t.inject({ method: 'PUT', url: `/admin/merchants/${merchant.merchantId}/antifraud`, headers: admin(), payload: { velocity: { maxPerCard: 2, maxPerDocument: 1_000_000, maxPerIp: 1_000_000 } } });
    expect(velocity.statusCode, velocity.body).toBe(200);
    return merchant;
  }

  /** Counts each payment outcome reported to the metrics (reportOutcome). */
  function countReports(): { count: number } {
    const counter = { count: 0 };
    const metrics = t.ctx.metrics;
    const original = metrics.paymentRecorded;
    metrics.paymentRecorded = function (...args: Parameters<typeof original>) {
      counter.count += 1;
      return original.apply(this, args);
    };
    const previous = restore;
    restore = () => {
      previous?.();
      metrics.paymentRecorded = original;
    };
    return counter;
  }

  /** The dedupe keys of the jobs enqueued from now on. */
  function enqueuedKeys(): (string | undefined)[] {
    const keys: (string | undefined)[] = [];
    const queue = t.ctx.queue;
    const original = queue.enqueue;
    queue.enqueue = function (...args: Parameters<typeof original>) {
      keys.push(args[1].dedupeKey);
      return original.apply(this, args);
    };
    const previous = restore;
    restore = () => {
      previous?.();
      queue.enqueue = original;
    };
    return keys;
  }

  it('the router says the sandbox authorizes in the database for a merchant without a connection of its own', async () => {
    expect(await t.ctx.acquirer.inDatabaseFor(m.merchantId)).toBeDefined();
  });

  it('an approved payment: one ledger row, one event, its receivables, no recovery job, reported once', async () => {
    const reports = countReports();
    const enqueued = enqueuedKeys();
    const res = await t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ vaultId: await vault(t, m, '4111111111111111') }) });
    expect(res.statusCode).toBe(201);
    const { paymentId } = res.json();
    expect(res.json()).toMatchObject({ status: 'Authorized', returnCode: '00' });
    expect(await ledger(paymentId)).toMatchObject([{ outcome: 'approved', authorization_code: res.json().authorizationCode, nsu: res.json().nsu }]);
    expect(await events(paymentId)).toEqual([{ old_status: '', new_status: 'Authorized' }]);
    expect((await receivables(paymentId)).map((r) => r.installment_status)).toEqual(['A']);
    expect(await recoveryJobs(paymentId)).toEqual([]);
    expect(enqueued).not.toContain(`payment.recover:${paymentId}`);
    expect(reports.count).toBe(1);
  });

  it.runIf(testDialect === 'postgres')("a payment's transaction is two round trips, the credential and the webhook subscriptions read ahead with its first", async () => {
    const pay = async (merchant: TestMerchant, body: object) => {
      const res = await t.inject({ method: 'POST', url: PAY, headers: merchant.headers, payload: body });
      expect(res.statusCode, res.body).toBe(201);
    };
    // No subscription: BEGIN with the credential, the subscriptions and the vault card read
    // ahead and the anti-fraud query (which reads the card's fingerprint itself); every write
    // with COMMIT. The credential used to be read alone before the transaction, the
    // subscriptions read rode between the writes and split them, and the card was read alone
    // before the anti-fraud query: three more. (A first payment warms the merchant's caches.)
    const plain = paymentBody({ vaultId: await vault(t, m, '4111111111111111') });
    await pay(m, plain);
    expect(await pgFlightsOf(() => pay(m, plain))).toBe(2);
    // With an Idempotency-Key the credential is read alone first, before the key's slot.
    const keyed = await pgFlightsOf(async () => {
      const res = await t.inject({ method: 'POST', url: PAY, headers: { ...m.headers, 'idempotency-key': 'flights-1' }, payload: plain });
      expect(res.statusCode, res.body).toBe(201);
    });
    expect(keyed).toBeGreaterThan(2);
    // A sandbox trigger decides without the anti-fraud query: the card read still goes out
    // (with BEGIN, the credential and the subscriptions), alone, and the payment is Blocked for review.
    const review = paymentBody({ vaultId: await vault(t, m, '4111111111111111') });
    (review.customer as { email: string }).email = 'someone@review.test';
    const reviewed = await pgFlightsOf(async () => {
      const res = await t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: review });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().status).toBe('Blocked');
    });
    expect(reviewed).toBe(2);
    // An encrypted card needs no read: BEGIN, the subscriptions and the anti-fraud query, then
    // the writes. (The first one loads the card key.)
    const encrypted = async () => paymentBody({ encryptedCard: await encryptCard(t, { number: '4111111111111111', expirationMonth: '12', expirationYear: '2035', securityCode: '123' }) });
    await pay(m, await encrypted());
    const second = await encrypted();
    expect(await pgFlightsOf(() => pay(m, second))).toBe(2);
    // A numberToken is consumed (an UPDATE answering the card) with the anti-fraud query too.
    const token = await tokenize(t, m, '4111111111111111');
    expect(await pgFlightsOf(() => pay(m, paymentBody({ numberToken: token })))).toBe(2);
    // Subscribed: the notification and its delivery job are read back (their ids), two more;
    // the notification is written from the subscriptions read ahead.
    const w = await webhookMerchant(t);
    await subscribed(t, w, 'https://merchant.example/hooks');
    const body = paymentBody({ vaultId: await vault(t, w, '4111111111111111') });
    await pay(w, body);
    expect(await pgFlightsOf(() => pay(w, body))).toBe(4);
    const notified = await db().selectFrom('webhook_notifications').select('payload').where('merchant_id', '=', w.merchantId).execute();
    expect(notified.filter((n) => n.payload.includes('"newValue":"Authorized"'))).toHaveLength(2);
  });

  it("a vault card's rules see its fingerprint (read with the anti-fraud query on PostgreSQL); an unknown, foreign or deleted card is 404 with nothing written", async () => {
    const merchant = await scoringThirdPayment();
    const pay = (vaultId: string, who: TestMerchant = merchant) => t.inject({ method: 'POST', url: PAY, headers: who.headers, payload: paymentBody({ vaultId }) });
    // Velocity by card: the third payment of one card within the window is scored.
    const repeated = await vault(t, merchant, '4111111111111111');
    const first = await pay(repeated);
    const second = await pay(repeated);
    const third = await pay(repeated);
    expect([first.statusCode, second.statusCode, third.statusCode]).toEqual([201, 201, 201]);
    expect(await reasonsOf(first.json().paymentId)).toEqual([]);
    expect(await reasonsOf(second.json().paymentId)).toEqual([]);
    expect(await reasonsOf(third.json().paymentId)).toEqual(['velocity_card']);
    // A blocklisted card number: refused (59) without reaching the acquirer.
    const listedCard = await vault(t, merchant, '5555555555554444');
    expect((await t.inject({ method: 'POST', url: '/admin/antifraud/blocklist', headers: admin(), payload: { kind: 'card', value: '5555555555554444' } })).statusCode).toBe(201);
    const refused = await pay(listedCard);
    expect(refused.statusCode, refused.body).toBe(201);
    expect(refused.json().returnCode).toBe('59');
    expect(await reasonsOf(refused.json().paymentId)).toEqual(['blocklist_card']);
    // Unknown, another merchant's, deleted: 404, and no payment, ledger row or outbox row.
    const before = { payments: (await payments(merchant.merchantId)).length, ledger: (await ledgerOf(merchant.merchantId)).length, outbox: (await outboxOf(merchant.merchantId)).length };
    const other = await t.merchant();
    const foreign = await vault(t, other, '4012001037141112');
    const deleted = await vault(t, merchant, '4012001037141112');
    expect((await t.inject({ method: 'DELETE', url: `/gateway/v1/vaults/cards/${deleted}`, headers: merchant.headers })).statusCode).toBe(200);
    for (const vaultId of ['00000000-0000-4000-8000-000000000000', foreign, deleted]) {
      const res = await pay(vaultId);
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toEqual([{ tag: 'not_found', description: 'cardInfo.vaultId not found.' }]);
    }
    expect({ payments: (await payments(merchant.merchantId)).length, ledger: (await ledgerOf(merchant.merchantId)).length, outbox: (await outboxOf(merchant.merchantId)).length }).toEqual(before);
  });

  it("a numberToken's rules see its fingerprint (consumed with the anti-fraud query on PostgreSQL); an unknown, foreign or used token is refused with nothing written", async () => {
    const merchant = await scoringThirdPayment();
    const pay = (numberToken: string, who: TestMerchant = merchant) => t.inject({ method: 'POST', url: PAY, headers: who.headers, payload: paymentBody({ numberToken }) });
    const consumedAt = async (numberToken: string) => (await db().selectFrom('card_tokens').select('consumed_at').where('number_token', '=', numberToken).executeTakeFirstOrThrow()).consumed_at;
    // Velocity by card, across tokens of one card: the third payment within the window is scored.
    const paid = [];
    for (let i = 0; i < 3; i++) paid.push(await pay(await tokenize(t, merchant, '4111111111111111')));
    expect(paid.map((r) => r.statusCode)).toEqual([201, 201, 201]);
    expect(await reasonsOf(paid[0].json().paymentId)).toEqual([]);
    expect(await reasonsOf(paid[1].json().paymentId)).toEqual([]);
    expect(await reasonsOf(paid[2].json().paymentId)).toEqual(['velocity_card']);
    // A blocklisted card number: refused (59), and the token is used up by that payment.
    expect((await t.inject({ method: 'POST', url: '/admin/antifraud/blocklist', headers: admin(), payload: { kind: 'card', value: '5105105105105100' } })).statusCode).toBe(201);
    const listed = await tokenize(t, merchant, '5105105105105100');
    const refused = await pay(listed);
    expect(refused.json().returnCode).toBe('59');
    expect(await reasonsOf(refused.json().paymentId)).toEqual(['blocklist_card']);
    expect(await consumedAt(listed)).not.toBeNull();
    // Unknown, another merchant's, used: 404, 404, 400, and no payment, ledger or outbox row;
    // the foreign token stays usable by its own merchant.
    const before = { payments: (await payments(merchant.merchantId)).length, ledger: (await ledgerOf(merchant.merchantId)).length, outbox: (await outboxOf(merchant.merchantId)).length };
    const other = await t.merchant();
    const foreign = await tokenize(t, other, '4012001037141112');
    const unknown = await pay('tok_unknownunknownunknownunknownunkn');
    expect(unknown.statusCode, unknown.body).toBe(404);
    expect(unknown.json()).toEqual([{ tag: 'not_found', description: 'cardInfo.numberToken not found.' }]);
    const stolen = await pay(foreign);
    expect(stolen.statusCode, stolen.body).toBe(404);
    expect(await consumedAt(foreign)).toBeNull();
    const used = await pay(listed);
    expect(used.statusCode, used.body).toBe(400);
    expect(used.json()[0]).toMatchObject({ tag: 'cardInfo.numberToken', description: expect.stringContaining('already used') });
    expect({ payments: (await payments(merchant.merchantId)).length, ledger: (await ledgerOf(merchant.merchantId)).length, outbox: (await outboxOf(merchant.merchantId)).length }).toEqual(before);
    expect((await pay(foreign, other)).statusCode).toBe(201);
  });

  it('a decline and a 96: recorded in the same transaction as the ledger row; the 96 is still a 502', async () => {
    const declined = await t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ numberToken: await tokenize(t, m, '4000000000000002') }) });
    expect(declined.statusCode).toBe(201);
    expect(declined.json()).toMatchObject({ status: 'Denied', returnCode: '05' });
    expect(await ledger(declined.json().paymentId)).toHaveLength(1);
    expect(await receivables(declined.json().paymentId)).toEqual([]);

    const before = (await payments(m.merchantId)).length;
    const failed = await t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ numberToken: await tokenize(t, m, '4000000000000119') }) });
    expect(failed.statusCode).toBe(502);
    expect(failed.json()[0].tag).toBe('acquirer_failure');
    const paymentId = /payment ([0-9a-f-]{36})/.exec(failed.json()[0].description)![1];
    expect(await db().selectFrom('payments').select(['status', 'return_code']).where('payment_id', '=', paymentId).executeTakeFirst()).toEqual({ status: 'Denied', return_code: '96' });
    expect(await ledger(paymentId)).toMatchObject([{ outcome: 'failed', return_code: '96' }]);
    expect(await events(paymentId)).toEqual([{ old_status: '', new_status: 'Denied' }]);
    expect(await recoveryJobs(paymentId)).toEqual([]);
    expect((await payments(m.merchantId)).length).toBe(before + 1);
  });

  it('anti-fraud Review is Blocked in the same transaction, its receivables held (B)', async () => {
    const body = paymentBody({ vaultId: await vault(t, m, '4111111111111111') });
    body.customer.email = 'someone@review.test';
    const res = await t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: body });
    expect(res.json()).toMatchObject({ status: 'Blocked', returnCode: '00' });
    expect((await receivables(res.json().paymentId)).map((r) => r.installment_status)).toEqual(['B']);
    expect(await events(res.json().paymentId)).toEqual([{ old_status: '', new_status: 'Blocked' }]);
  });

  it('a failure after the ledger insert rolls back payment and ledger row alike; the retry under the same id charges once', async () => {
    const merchant = await t.merchant();
    const vaultId = await vault(t, merchant, '4111111111111111');
    const paymentId = '5e0c7a3b-2d4f-4a1e-9b8c-7d6e5f4a3b2c';
    const create = () => t.ctx.payments.create({ merchantId: merchant.merchantId, accountNumber: merchant.accountNumber }, paymentBody({ vaultId }) as never, { paymentId });
    const reports = countReports();
    failSettlement(() => new Error('injected after the ledger insert'));
    await expect(create()).rejects.toThrow('injected after the ledger insert');
    expect(await payments(merchant.merchantId)).toEqual([]);
    expect(await ledger(paymentId)).toEqual([]);
    expect(await events(paymentId)).toEqual([]);
    expect(await outboxOf(merchant.merchantId)).toEqual([]);
    expect(reports.count).toBe(0);

    const retried = await create();
    expect(retried).toMatchObject({ status: 201, body: { paymentId, status: 'Authorized' } });
    expect(await ledger(paymentId)).toHaveLength(1);
    expect(await payments(merchant.merchantId)).toEqual([{ payment_id: paymentId }]);
    expect(await events(paymentId)).toEqual([{ old_status: '', new_status: 'Authorized' }]);
    expect(await receivables(paymentId)).toHaveLength(1);
    expect(reports.count).toBe(1);
  });

  it('two concurrent payments under one id (a twin billing run): one is made, the other refused; one ledger row', async () => {
    const merchant = await t.merchant();
    const vaultId = await vault(t, merchant, '4111111111111111');
    const paymentId = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
    const create = () => t.ctx.payments.create({ merchantId: merchant.merchantId, accountNumber: merchant.accountNumber }, paymentBody({ vaultId }) as never, { paymentId });
    const settled = await Promise.allSettled([create(), create()]);
    expect(settled.map((s) => s.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(await payments(merchant.merchantId)).toEqual([{ payment_id: paymentId }]);
    expect(await ledger(paymentId)).toHaveLength(1);
    expect(await events(paymentId)).toHaveLength(1);
  });

  it('an id the ledger already holds (a charge made outside this transaction) fails the payment: nothing written, the first answer kept', async () => {
    const merchant = await t.merchant();
    const vaultId = await vault(t, merchant, '4111111111111111');
    const paymentId = '3c2b1a09-8f7e-4d6c-9b5a-493827160504';
    const first = { idempotency_key: paymentId, merchant_id: merchant.merchantId, amount: 100, outcome: 'approved' as const, return_code: '00', return_message: 'first', authorization_code: 'FIRST1', nsu: '111111', acquirer_reference: `sandbox-${paymentId}`, canceled_at: null, created_at: '2026-01-01T00:00:00.000Z' };
    await db().insertInto('sandbox_acquirer_ledger').values(first).execute();
    const reports = countReports();
    await expect(t.ctx.payments.create({ merchantId: merchant.merchantId, accountNumber: merchant.accountNumber }, paymentBody({ vaultId }) as never, { paymentId })).rejects.toThrow();
    expect(await payments(merchant.merchantId)).toEqual([]);
    expect(await events(paymentId)).toEqual([]);
    expect(await receivables(paymentId)).toEqual([]);
    expect(await outboxOf(merchant.merchantId)).toEqual([]);
    expect(await ledger(paymentId)).toMatchObject([{ authorization_code: 'FIRST1', return_message: 'first' }]);
    expect(reports.count).toBe(0);
  });

  it('the database failing inside the transaction: 503 database_unavailable, neither payment nor ledger row', async () => {
    const merchant = await t.merchant();
    const vaultId = await vault(t, merchant, '4111111111111111');
    // What node-postgres raises when the backend is terminated (pg_terminate_backend, a restart).
    failSettlement(() => Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }));
    const res = await t.inject({ method: 'POST', url: PAY, headers: merchant.headers, payload: paymentBody({ vaultId }) });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.json()[0].tag).toBe('database_unavailable');
    expect(await payments(merchant.merchantId)).toEqual([]);
    expect(await ledgerOf(merchant.merchantId)).toEqual([]);
    expect(await outboxOf(merchant.merchantId)).toEqual([]);
  });

  it('a merchant with its own Cielo connection keeps the two-phase path (payment first, then the call)', async () => {
    const own = await t.merchant();
    const put = await t.inject({
      method: 'PUT',
      url: `/admin/merchants/${own.merchantId}/acquirer`,
      headers: t.adminHeaders,
      payload: { provider: 'cielo', merchantId: 'm', merchantKey: 'k', apiUrl: 'http://127.0.0.1:9', queryUrl: 'http://127.0.0.1:9' },
    });
    expect(put.statusCode).toBe(200);
    expect(await t.ctx.acquirer.inDatabaseFor(own.merchantId)).toBeUndefined();
    const enqueued = enqueuedKeys();
    // Nothing listens there: the connector answers "never sent", recorded as Denied 96 by the second transaction.
    const res = await t.inject({ method: 'POST', url: PAY, headers: own.headers, payload: paymentBody({ numberToken: await tokenize(t, own, '4111111111111111') }) });
    expect(res.statusCode).toBe(502);
    const paymentId = /payment ([0-9a-f-]{36})/.exec(res.json()[0].description)![1];
    expect(await db().selectFrom('payments').select(['status', 'return_code']).where('payment_id', '=', paymentId).executeTakeFirst()).toEqual({ status: 'Denied', return_code: '96' });
    expect(await ledger(paymentId)).toEqual([]);
    // The first transaction wrote its recovery job; recording the outcome removed it.
    expect(enqueued).toContain(`payment.recover:${paymentId}`);
    expect(await recoveryJobs(paymentId)).toEqual([]);
    expect(await t.ctx.acquirer.inDatabaseFor(m.merchantId)).toBeDefined();
  });
});
