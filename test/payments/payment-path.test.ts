import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { paymentBody, tokenize, vault } from '../support/cards.js';
import { subscribed, webhookMerchant } from '../webhooks/support.js';
import { AcquirerUnavailable, type AuthorizeResult } from '../../src/acquirer/types.js';
import type { SandboxAcquirer } from '../../src/acquirer/sandbox/acquirer.js';
import { type CreateOutcome } from '../../src/modules/payments/service.js';
import { paymentsRepository } from '../../src/modules/payments/repository.js';

const PAY = '/gateway/v1/payments';

/**
 * One payment path for every connector, the sandbox included: the payment is recorded first
 * (Pending with its `recover_at`, or Denied 59 by anti-fraud), the acquirer is called outside
 * any transaction with the payment id as idempotency key (the sandbox writes its ledger row in a
 * statement of its own), and the outcome (status and event) is recorded in one statement; the
 * relay makes its notifications and receivables. Whatever dies in between, the payment stays
 * Pending, and the recovery pass settles it from the acquirer's record without authorizing twice.
 */
describe(`one payment path, the sandbox acquirer called outside the transaction (${testDialect})`, () => {
  let t: TestApp;
  let sandbox: SandboxAcquirer;
  const restores: (() => void)[] = [];
  beforeAll(async () => {
    t = await testApp();
    sandbox = t.ctx.acquirer.sandbox;
  });
  afterEach(() => {
    while (restores.length) restores.pop()!();
  });
  afterAll(() => t.close());

  const db = () => t.ctx.database.db;
  const ledger = (key: string) => db().selectFrom('sandbox_acquirer_ledger').selectAll().where('idempotency_key', '=', key).execute();
  const ledgerOf = (merchantId: string) => db().selectFrom('sandbox_acquirer_ledger').select('idempotency_key').where('merchant_id', '=', merchantId).execute();
  /** Whether the recovery pass still has the payment to ask about (Pending with its recover_at). */
  const awaitsRecovery = async (paymentId: string) => {
    const row = await paymentRow(paymentId);
    return row.status === 'Pending' && row.recover_at !== null;
  };
  /** The recovery pass, run at the payment's recover_at (as the sweep does once it is due), then the relay. */
  const runRecovery = async (paymentId: string) => t.ctx.payments.settleBackground(new Date((await paymentRow(paymentId)).recover_at!));
  /** What trails an outcome (the relay) is made before these read it. */
  const relayed = () => t.ctx.payments.settleBackground();
  const events = async (paymentId: string) => (await relayed(), db().selectFrom('payment_events').select(['old_status', 'new_status']).where('payment_id', '=', paymentId).orderBy('id').execute());
  const receivables = async (paymentId: string) => (await relayed(), (await db().selectFrom('receivables').select('installment_status').where('source_id', '=', paymentId).execute()).map((r) => r.installment_status));
  const paymentsOf = (merchantId: string) => db().selectFrom('payments').select('payment_id').where('merchant_id', '=', merchantId).execute();
  const paymentRow = (paymentId: string) => db().selectFrom('payments').selectAll().where('payment_id', '=', paymentId).executeTakeFirstOrThrow();
  const outboxOf = (merchantId: string) => db().selectFrom('webhook_notifications').select('payload').where('merchant_id', '=', merchantId).execute();
  const authorizedNotices = async (merchantId: string) => (await relayed(), (await outboxOf(merchantId)).filter((n) => n.payload.includes('"newValue":"Authorized"')).length);
  const reasonsOf = async (paymentId: string) => JSON.parse((await paymentRow(paymentId)).antifraud_reasons);
  const admin = () => ({ ...t.adminHeaders, 'content-type': 'application/json' });
  const pay = (merchant: TestMerchant, body: object) => t.inject({ method: 'POST', url: PAY, headers: merchant.headers, payload: body });
  /** The payment service straight, as a billing run calls it (a fixed payment id). */
  const create = (merchant: TestMerchant, body: object, paymentId?: string): Promise<CreateOutcome> =>
    t.ctx.payments.create({ merchantId: merchant.merchantId, accountNumber: merchant.accountNumber }, body as never, paymentId ? { paymentId } : {});

  /** Replaces `target[key]` until the end of the test. */
  function patch<T extends object, K extends keyof T>(target: T, key: K, replacement: (original: T[K]) => T[K]): void {
    const original = target[key];
    target[key] = replacement(original);
    restores.push(() => {
      target[key] = original;
    });
  }

  /** Counts the payment outcomes reported to the metrics (reportOutcome: once per payment). */
  function countReports(): { count: number } {
    const counter = { count: 0 };
    patch(t.ctx.metrics, 'paymentRecorded', (original) =>
      function (this: unknown, ...args: Parameters<typeof original>) {
        counter.count += 1;
        return original.apply(this, args);
      },
    );
    return counter;
  }

  /** The recorded outcome fails once with `error` (its one statement on PostgreSQL; its transaction on SQLite). */
  function failOutcome(error: () => Error): void {
    let left = 1;
    patch(paymentsRepository, 'recordOutcomes', (original) =>
      async function (this: unknown, ...args: Parameters<typeof original>) {
        if (left-- > 0) throw error();
        return original.apply(this, args);
      },
    );
  }

  /**
   * The process "dies" around the sandbox call: authorize reaches the ledger or not, then never
   * returns until `release` (what a dead process's call is: it never records anything).
   */
  function stallAuthorize(options: { reachesLedger: boolean }) {
    /** Lets the stalled call go on: with `answer`, or ('send') by making the call it was about to make. */
    let release!: (answer: (() => Promise<AuthorizeResult>) | 'send') => void;
    const gate = new Promise<(() => Promise<AuthorizeResult>) | 'send'>((resolve) => (release = resolve));
    let arrived!: () => void;
    const stalled = new Promise<void>((resolve) => (arrived = resolve));
    patch(sandbox, 'authorize', (original) =>
      async function (this: SandboxAcquirer, ...args: Parameters<typeof original>) {
        const answer = options.reachesLedger ? await original.apply(this, args) : undefined;
        arrived();
        const late = await gate;
        return answer ?? (late === 'send' ? original.apply(this, args) : late());
      },
    );
    return { stalled, release };
  }

  /** A merchant whose anti-fraud scores a card's third payment within the window (maxPerCard 2). */
  async function scoringThirdPayment(): Promise<TestMerchant> {
    const merchant = await t.merchant();
    const velocity = await t.inject({ method: 'PUT', url: `/admin/merchants/${merchant.merchantId}/antifraud`, headers: admin(), payload: { velocity: { maxPerCard: 2, maxPerDocument: 1_000_000, maxPerIp: 1_000_000 } } });
    expect(velocity.statusCode, velocity.body).toBe(200);
    return merchant;
  }

  it('an approved payment: one ledger row under its id, one event, its receivables and notification, written with its recover_at and answered, reported once', async () => {
    const w = await webhookMerchant(t);
    await subscribed(t, w, 'https://merchant.example/hooks');
    const vaultId = await vault(t, w, '4111111111111111');
    const reports = countReports();
    const calls = sandbox.authorizeCalls;
    const res = await pay(w, paymentBody({ vaultId }));
    expect(res.statusCode, res.body).toBe(201);
    const { paymentId, authorizationCode, nsu } = res.json();
    expect(res.json()).toMatchObject({ status: 'Authorized', returnCode: '00' });
    expect(await ledger(paymentId)).toMatchObject([{ idempotency_key: paymentId, merchant_id: w.merchantId, amount: 10000, outcome: 'approved', authorization_code: authorizationCode, nsu }]);
    expect(await ledgerOf(w.merchantId)).toHaveLength(1);
    expect(sandbox.authorizeCalls).toBe(calls + 1);
    expect(await paymentRow(paymentId)).toMatchObject({ status: 'Authorized', return_code: '00', authorization_code: authorizationCode, nsu, acquirer_reference: `sbx_${paymentId}` });
    expect(await events(paymentId)).toEqual([{ old_status: '', new_status: 'Authorized' }]);
    expect(await receivables(paymentId)).toEqual(['A']);
    expect(await authorizedNotices(w.merchantId)).toBe(1);
    // Written with its recover_at; once answered it is no longer Pending, so no recovery asks about it.
    expect((await paymentRow(paymentId)).recover_at).not.toBeNull();
    expect(await awaitsRecovery(paymentId)).toBe(false);
    expect(reports.count).toBe(1);
  });

  it("a vault card's rules see its fingerprint (velocity across vault cards and tokens of one card, the blocklist: 59 without the acquirer); an unknown, foreign or deleted card is 404 with nothing written", async () => {
    const merchant = await scoringThirdPayment();
    // Velocity by card: two vault entries and a token of one card number are one card.
    const first = await pay(merchant, paymentBody({ vaultId: await vault(t, merchant, '4111111111111111') }));
    const second = await pay(merchant, paymentBody({ numberToken: await tokenize(t, merchant, '4111111111111111') }));
    const third = await pay(merchant, paymentBody({ vaultId: await vault(t, merchant, '4111111111111111') }));
    expect([first.statusCode, second.statusCode, third.statusCode]).toEqual([201, 201, 201]);
    expect(await reasonsOf(first.json().paymentId)).toEqual([]);
    expect(await reasonsOf(second.json().paymentId)).toEqual([]);
    expect(await reasonsOf(third.json().paymentId)).toEqual(['velocity_card']);
    // Another card is not counted with it.
    const other = await pay(merchant, paymentBody({ vaultId: await vault(t, merchant, '4012001037141112') }));
    expect(await reasonsOf(other.json().paymentId)).toEqual([]);

    // A blocklisted card number: Denied 59 at its insert; no ledger row, no call, nothing to recover.
    const listedCard = await vault(t, merchant, '5555555555554444');
    expect((await t.inject({ method: 'POST', url: '/admin/antifraud/blocklist', headers: admin(), payload: { kind: 'card', value: '5555555555554444' } })).statusCode).toBe(201);
    const calls = sandbox.authorizeCalls;
    const refused = await pay(merchant, paymentBody({ vaultId: listedCard }));
    expect(refused.statusCode, refused.body).toBe(201);
    expect(refused.json()).toMatchObject({ status: 'Denied', returnCode: '59' });
    const refusedId = refused.json().paymentId;
    expect(await reasonsOf(refusedId)).toEqual(['blocklist_card']);
    expect(await ledger(refusedId)).toEqual([]);
    expect(sandbox.authorizeCalls).toBe(calls);
    expect((await paymentRow(refusedId)).recover_at).toBeNull();
    expect(await events(refusedId)).toEqual([{ old_status: '', new_status: 'Denied' }]);
    expect(await receivables(refusedId)).toEqual([]);

    // Unknown, another merchant's, deleted: 404, and no payment, ledger row, outbox row or job.
    const count = async () => ({ payments: (await paymentsOf(merchant.merchantId)).length, ledger: (await ledgerOf(merchant.merchantId)).length, outbox: (await outboxOf(merchant.merchantId)).length, events: (await db().selectFrom('payment_events').select('id').where('merchant_id', '=', merchant.merchantId).execute()).length });
    const before = await count();
    const stranger = await t.merchant();
    const foreign = await vault(t, stranger, '4012001037141112');
    const deleted = await vault(t, merchant, '4012001037141112');
    expect((await t.inject({ method: 'DELETE', url: `/gateway/v1/vaults/cards/${deleted}`, headers: merchant.headers })).statusCode).toBe(200);
    for (const vaultId of ['00000000-0000-4000-8000-000000000000', foreign, deleted]) {
      const res = await pay(merchant, paymentBody({ vaultId }));
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toEqual([{ tag: 'not_found', description: 'cardInfo.vaultId not found.' }]);
    }
    expect(await count()).toEqual(before);
    expect(sandbox.authorizeCalls).toBe(calls);
  });

  it('a numberToken pays once; an unknown, foreign or used one is refused with nothing written; a payment refused after reading it leaves it usable', async () => {
    const merchant = await scoringThirdPayment();
    const consumedAt = async (numberToken: string) => (await db().selectFrom('card_tokens').select('consumed_at').where('number_token', '=', numberToken).executeTakeFirstOrThrow()).consumed_at;
    const token = await tokenize(t, merchant, '4111111111111111');
    // Read, then refused by the card agreement check in the same transaction: rolled back, still usable.
    const calls = sandbox.authorizeCalls;
    const mismatch = await pay(merchant, paymentBody({ numberToken: token, brand: 'mastercard' }));
    expect(mismatch.statusCode, mismatch.body).toBe(400);
    expect(mismatch.json()[0].tag).toBe('cardInfo.brand');
    expect(await consumedAt(token)).toBeNull();
    expect(await paymentsOf(merchant.merchantId)).toEqual([]);
    expect(sandbox.authorizeCalls).toBe(calls);
    // Paid: consumed, one ledger row.
    const paid = await pay(merchant, paymentBody({ numberToken: token }));
    expect(paid.statusCode, paid.body).toBe(201);
    expect(paid.json().status).toBe('Authorized');
    expect(await consumedAt(token)).not.toBeNull();
    expect(await ledger(paid.json().paymentId)).toHaveLength(1);

    // A blocklisted card's token: Denied 59 without the acquirer, and the token is used up by that payment.
    expect((await t.inject({ method: 'POST', url: '/admin/antifraud/blocklist', headers: admin(), payload: { kind: 'card', value: '5105105105105100' } })).statusCode).toBe(201);
    const listed = await tokenize(t, merchant, '5105105105105100');
    const refused = await pay(merchant, paymentBody({ numberToken: listed }));
    expect(refused.json()).toMatchObject({ status: 'Denied', returnCode: '59' });
    expect(await reasonsOf(refused.json().paymentId)).toEqual(['blocklist_card']);
    expect(await ledger(refused.json().paymentId)).toEqual([]);
    expect(await consumedAt(listed)).not.toBeNull();

    // Unknown, another merchant's, used (twice over): 404, 404, 400, and nothing written.
    const count = async () => ({ payments: (await paymentsOf(merchant.merchantId)).length, ledger: (await ledgerOf(merchant.merchantId)).length, outbox: (await outboxOf(merchant.merchantId)).length, events: (await db().selectFrom('payment_events').select('id').where('merchant_id', '=', merchant.merchantId).execute()).length });
    const before = await count();
    const callsBefore = sandbox.authorizeCalls;
    const stranger = await t.merchant();
    const foreign = await tokenize(t, stranger, '4012001037141112');
    const unknown = await pay(merchant, paymentBody({ numberToken: 'tok_unknownunknownunknownunknownunkn' }));
    expect(unknown.statusCode, unknown.body).toBe(404);
    expect(unknown.json()).toEqual([{ tag: 'not_found', description: 'cardInfo.numberToken not found.' }]);
    const stolen = await pay(merchant, paymentBody({ numberToken: foreign }));
    expect(stolen.statusCode, stolen.body).toBe(404);
    expect(await consumedAt(foreign)).toBeNull();
    for (const used of [token, listed]) {
      const again = await pay(merchant, paymentBody({ numberToken: used }));
      expect(again.statusCode, again.body).toBe(400);
      expect(again.json()[0]).toMatchObject({ tag: 'cardInfo.numberToken', description: expect.stringContaining('already used') });
    }
    expect(await count()).toEqual(before);
    expect(sandbox.authorizeCalls).toBe(callsBefore);
    // The foreign token is still its own merchant's to use.
    expect((await pay(stranger, paymentBody({ numberToken: foreign }))).statusCode).toBe(201);
  });

  it('a decline is 201 Denied 05 with its ledger row; a 96 is 502 acquirer_failure, Denied 96, nothing charged; neither is left to the recovery', async () => {
    const merchant = await t.merchant();
    const reports = countReports();
    const declined = await pay(merchant, paymentBody({ numberToken: await tokenize(t, merchant, '4000000000000002') }));
    expect(declined.statusCode, declined.body).toBe(201);
    expect(declined.json()).toMatchObject({ status: 'Denied', returnCode: '05', authorizationCode: null });
    const declinedId = declined.json().paymentId;
    expect(await ledger(declinedId)).toMatchObject([{ outcome: 'declined', return_code: '05', authorization_code: null }]);
    expect(await events(declinedId)).toEqual([{ old_status: '', new_status: 'Denied' }]);
    expect(await receivables(declinedId)).toEqual([]);
    expect(await awaitsRecovery(declinedId)).toBe(false);

    const failed = await pay(merchant, paymentBody({ numberToken: await tokenize(t, merchant, '4000000000000119') }));
    expect(failed.statusCode, failed.body).toBe(502);
    expect(failed.json()[0].tag).toBe('acquirer_failure');
    expect(failed.json()[0].description).toContain('nothing was charged');
    const failedId = /payment ([0-9a-f-]{36})/.exec(failed.json()[0].description)![1];
    expect(await paymentRow(failedId)).toMatchObject({ status: 'Denied', return_code: '96', authorization_code: null, nsu: null });
    expect(await ledger(failedId)).toMatchObject([{ outcome: 'failed', return_code: '96', authorization_code: null }]);
    expect(await events(failedId)).toEqual([{ old_status: '', new_status: 'Denied' }]);
    expect(await receivables(failedId)).toEqual([]);
    expect(await awaitsRecovery(failedId)).toBe(false);
    expect((await paymentsOf(merchant.merchantId)).length).toBe(2);
    expect(reports.count).toBe(2);
  });

  it('anti-fraud Review: authorized at the acquirer, recorded Blocked, its receivables held (B)', async () => {
    const merchant = await t.merchant();
    const body = paymentBody({ vaultId: await vault(t, merchant, '4111111111111111') });
    body.customer.email = 'someone@review.test';
    const res = await pay(merchant, body);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ status: 'Blocked', returnCode: '00', antiFraud: { decision: 'Review' } });
    const { paymentId } = res.json();
    expect(await ledger(paymentId)).toMatchObject([{ outcome: 'approved' }]);
    expect(await receivables(paymentId)).toEqual(['B']);
    expect(await events(paymentId)).toEqual([{ old_status: '', new_status: 'Blocked' }]);
    expect(await awaitsRecovery(paymentId)).toBe(false);
  });

  it('the process dying after the acquirer recorded the sale: Pending, due for recovery; the recovery pass settles it from the ledger, never authorizing twice; the late answer writes nothing again', async () => {
    const merchant = await t.merchant();
    const vaultId = await vault(t, merchant, '4111111111111111');
    const reports = countReports();
    const crash = stallAuthorize({ reachesLedger: true });
    const calls = sandbox.authorizeCalls;
    const paymentId = '1f2e3d4c-5b6a-4798-8a7b-6c5d4e3f2a1b';
    const dying = create(merchant, paymentBody({ vaultId }), paymentId);
    await crash.stalled;
    expect(sandbox.authorizeCalls).toBe(calls + 1);
    expect(await paymentRow(paymentId)).toMatchObject({ status: 'Pending', authorization_code: null });
    expect(await awaitsRecovery(paymentId)).toBe(true);
    const [sale] = await ledger(paymentId);
    expect(sale).toMatchObject({ outcome: 'approved' });
    expect(await events(paymentId)).toEqual([]);
    expect(await receivables(paymentId)).toEqual([]);
    expect(reports.count).toBe(0);

    await runRecovery(paymentId);
    expect(await paymentRow(paymentId)).toMatchObject({ status: 'Authorized', return_code: '00', authorization_code: sale.authorization_code, nsu: sale.nsu });
    expect(sandbox.authorizeCalls).toBe(calls + 1);
    expect(await ledger(paymentId)).toHaveLength(1);
    expect(await events(paymentId)).toEqual([{ old_status: '', new_status: 'Authorized' }]);
    expect(await receivables(paymentId)).toEqual(['A']);
    expect(await awaitsRecovery(paymentId)).toBe(false);
    expect(reports.count).toBe(1);
    // A second run of the recovery (a retried job) changes nothing.
    await runRecovery(paymentId);
    expect(await events(paymentId)).toHaveLength(1);

    // Had the process lived after all, its answer loses to the recovery: no second event, receivable or report.
    crash.release(() => Promise.reject(new Error('unused')));
    const outcome = await dying;
    expect(outcome).toMatchObject({ kind: 'recorded', payment: { paymentId, status: 'Authorized', authorizationCode: sale.authorization_code } });
    expect(await events(paymentId)).toHaveLength(1);
    expect(await receivables(paymentId)).toEqual(['A']);
    expect(reports.count).toBe(1);
    expect(sandbox.authorizeCalls).toBe(calls + 1);
  });

  it('the process dying before the send: Pending, due for recovery; the recovery closes the key and records Denied 96, and a send arriving later is refused, nothing charged', async () => {
    const merchant = await t.merchant();
    const vaultId = await vault(t, merchant, '4111111111111111');
    const crash = stallAuthorize({ reachesLedger: false });
    const calls = sandbox.authorizeCalls;
    const paymentId = '2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d';
    const late = create(merchant, paymentBody({ vaultId }), paymentId);
    await crash.stalled;
    expect(await paymentRow(paymentId)).toMatchObject({ status: 'Pending' });
    expect(await awaitsRecovery(paymentId)).toBe(true);
    expect(await ledger(paymentId)).toEqual([]);

    await t.ctx.payments.recover(paymentId);
    expect(await paymentRow(paymentId)).toMatchObject({ status: 'Denied', return_code: '96', authorization_code: null });
    expect(await events(paymentId)).toEqual([{ old_status: '', new_status: 'Denied' }]);
    // The key is closed: the sandbox holds "never received" under it.
    expect(await ledger(paymentId)).toMatchObject([{ outcome: 'failed', return_code: '96' }]);
    expect(await receivables(paymentId)).toEqual([]);
    expect(await awaitsRecovery(paymentId)).toBe(false);
    expect(sandbox.authorizeCalls).toBe(calls);

    // The send that was on its way arrives after the recovery: refused, not approved.
    crash.release('send');
    expect(await late).toMatchObject({ error: { kind: 'upstream_failed' } });
    expect(await ledger(paymentId)).toMatchObject([{ outcome: 'failed' }]);
    expect(sandbox.authorizeCalls).toBe(calls);
    expect(await paymentRow(paymentId)).toMatchObject({ status: 'Denied', return_code: '96' });
    expect(await events(paymentId)).toHaveLength(1);
  });

  it("the sandbox's answer lost after its ledger write: looked up at once, 201 Authorized, one authorization", async () => {
    const merchant = await t.merchant();
    const vaultId = await vault(t, merchant, '4111111111111111');
    let lost = 1;
    patch(sandbox, 'authorize', (original) =>
      async function (this: SandboxAcquirer, ...args: Parameters<typeof original>) {
        const answer = await original.apply(this, args);
        if (lost-- > 0) throw new Error('socket hang up');
        return answer;
      },
    );
    const calls = sandbox.authorizeCalls;
    const res = await pay(merchant, paymentBody({ vaultId }));
    expect(res.statusCode, res.body).toBe(201);
    const { paymentId, authorizationCode } = res.json();
    expect(res.json().status).toBe('Authorized');
    expect(await ledger(paymentId)).toMatchObject([{ outcome: 'approved', authorization_code: authorizationCode }]);
    expect(sandbox.authorizeCalls).toBe(calls + 1);
    expect(await events(paymentId)).toEqual([{ old_status: '', new_status: 'Authorized' }]);
    expect(await awaitsRecovery(paymentId)).toBe(false);
  });

  it('the sandbox failing before its ledger write (not a database error): 502 acquirer_unavailable, Pending and due for recovery; the recovery records Denied 96', async () => {
    const merchant = await t.merchant();
    const vaultId = await vault(t, merchant, '4111111111111111');
    let broken = 1;
    patch(sandbox, 'authorize', (original) =>
      async function (this: SandboxAcquirer, ...args: Parameters<typeof original>) {
        if (broken-- > 0) throw new Error('socket hang up');
        return original.apply(this, args);
      },
    );
    const calls = sandbox.authorizeCalls;
    const res = await pay(merchant, paymentBody({ vaultId }));
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json()[0].tag).toBe('acquirer_unavailable');
    const paymentId = /payment ([0-9a-f-]{36})/.exec(res.json()[0].description)![1];
    expect(await paymentRow(paymentId)).toMatchObject({ status: 'Pending' });
    expect(await awaitsRecovery(paymentId)).toBe(true);
    expect(await ledger(paymentId)).toEqual([]);
    await runRecovery(paymentId);
    expect(await paymentRow(paymentId)).toMatchObject({ status: 'Denied', return_code: '96' });
    expect(await awaitsRecovery(paymentId)).toBe(false);
    expect(await ledger(paymentId)).toMatchObject([{ outcome: 'failed' }]);
    expect(sandbox.authorizeCalls).toBe(calls);
  }, 15_000);

  it("the database failing at the outcome's statement: 503 database_unavailable, Pending and due for recovery, one ledger row; the recovery settles it Authorized without a second authorization", async () => {
    const w = await webhookMerchant(t);
    await subscribed(t, w, 'https://merchant.example/hooks');
    const vaultId = await vault(t, w, '4111111111111111');
    const reports = countReports();
    // What node-postgres raises when the backend is terminated (pg_terminate_backend, a restart).
    failOutcome(() => Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }));
    const calls = sandbox.authorizeCalls;
    const res = await pay(w, paymentBody({ vaultId }));
    expect(res.statusCode, res.body).toBe(503);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.json()[0].tag).toBe('database_unavailable');
    expect(sandbox.authorizeCalls).toBe(calls + 1);

    const [payment] = await paymentsOf(w.merchantId);
    const paymentId = payment.payment_id;
    expect(await paymentsOf(w.merchantId)).toHaveLength(1);
    // The answer names the payment, so the caller (and a replay of its Idempotency-Key) looks it up instead of paying again.
    expect(res.json()[0].description).toContain(paymentId);
    // Nothing of the outcome was written: status, event, notification, receivables.
    expect(await paymentRow(paymentId)).toMatchObject({ status: 'Pending', authorization_code: null });
    expect(await events(paymentId)).toEqual([]);
    expect(await receivables(paymentId)).toEqual([]);
    expect(await authorizedNotices(w.merchantId)).toBe(0);
    expect(await awaitsRecovery(paymentId)).toBe(true);
    const [sale] = await ledger(paymentId);
    expect(await ledger(paymentId)).toHaveLength(1);
    expect(sale).toMatchObject({ outcome: 'approved' });
    expect(reports.count).toBe(0);

    await runRecovery(paymentId);
    expect(await paymentRow(paymentId)).toMatchObject({ status: 'Authorized', authorization_code: sale.authorization_code, nsu: sale.nsu });
    expect(sandbox.authorizeCalls).toBe(calls + 1);
    expect(await ledger(paymentId)).toHaveLength(1);
    expect(await events(paymentId)).toEqual([{ old_status: '', new_status: 'Authorized' }]);
    expect(await receivables(paymentId)).toEqual(['A']);
    expect(await authorizedNotices(w.merchantId)).toBe(1);
    expect(await awaitsRecovery(paymentId)).toBe(false);
    expect(reports.count).toBe(1);
  });

  it('a recovery not yet due leaves the payment alone; once due, one pass settles it and a second finds nothing', async () => {
    const merchant = await t.merchant();
    const vaultId = await vault(t, merchant, '4111111111111111');
    const crash = stallAuthorize({ reachesLedger: true });
    const paymentId = '5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a';
    const dying = create(merchant, paymentBody({ vaultId }), paymentId);
    await crash.stalled;
    const due = new Date((await paymentRow(paymentId)).recover_at!);
    await t.ctx.payments.settleBackground(new Date(due.getTime() - 1));
    expect(await paymentRow(paymentId)).toMatchObject({ status: 'Pending' });
    await t.ctx.payments.settleBackground(due);
    expect(await paymentRow(paymentId)).toMatchObject({ status: 'Authorized' });
    expect(await events(paymentId)).toEqual([{ old_status: '', new_status: 'Authorized' }]);
    crash.release(() => Promise.reject(new Error('unused')));
    await dying;
    expect(await events(paymentId)).toHaveLength(1);
  });

  it('two concurrent creates under one fixed payment id (a twin billing run): one is made, the other refused; one payment row, one ledger row, one authorization', async () => {
    const merchant = await t.merchant();
    const vaultId = await vault(t, merchant, '4111111111111111');
    const paymentId = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
    const calls = sandbox.authorizeCalls;
    const settled = await Promise.allSettled([create(merchant, paymentBody({ vaultId }), paymentId), create(merchant, paymentBody({ vaultId }), paymentId)]);
    expect(settled.map((s) => s.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(settled.find((s) => s.status === 'fulfilled')).toMatchObject({ value: { kind: 'recorded', payment: { paymentId, status: 'Authorized' } } });
    expect(await paymentsOf(merchant.merchantId)).toEqual([{ payment_id: paymentId }]);
    expect(await ledger(paymentId)).toHaveLength(1);
    expect(sandbox.authorizeCalls).toBe(calls + 1);
    expect(await events(paymentId)).toEqual([{ old_status: '', new_status: 'Authorized' }]);
    expect(await receivables(paymentId)).toEqual(['A']);
    expect(await awaitsRecovery(paymentId)).toBe(false);
  });

  it('an id the ledger already holds (a charge made before under that key) takes its first answer: no second authorization', async () => {
    const merchant = await t.merchant();
    const paymentId = '3c2b1a09-8f7e-4d6c-9b5a-493827160504';
    const first = { idempotency_key: paymentId, merchant_id: merchant.merchantId, amount: 10000, outcome: 'approved' as const, return_code: '00', return_message: 'first', authorization_code: 'FIRST1', nsu: '111111', acquirer_reference: `sbx_${paymentId}`, canceled_at: null, created_at: '2026-01-01T00:00:00.000Z' };
    await db().insertInto('sandbox_acquirer_ledger').values(first).execute();
    const calls = sandbox.authorizeCalls;
    let lookups = 0;
    patch(sandbox, 'lookup', (original) =>
      function (this: SandboxAcquirer, ...args: Parameters<typeof original>) {
        lookups += 1;
        return original.apply(this, args);
      },
    );
    // The card would be declined were it authorized afresh: the first answer wins, answered by the authorization itself.
    const outcome = await create(merchant, paymentBody({ vaultId: await vault(t, merchant, '4000000000000002') }), paymentId);
    expect(outcome).toMatchObject({ kind: 'recorded', payment: { paymentId, status: 'Authorized', authorizationCode: 'FIRST1', nsu: '111111' } });
    expect(sandbox.authorizeCalls).toBe(calls);
    expect(lookups).toBe(0);
    expect(await ledger(paymentId)).toMatchObject([{ authorization_code: 'FIRST1', return_message: 'first' }]);
    expect(await events(paymentId)).toEqual([{ old_status: '', new_status: 'Authorized' }]);
  });
});
