import { afterEach, describe, expect, it } from 'vitest';
import type { LogEvent } from 'kysely';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/root/context.js';
import { createLogger } from '../../src/logger.js';
import { billingsRepository } from '../../src/modules/recurrence/billings-repository.js';
import { RECURRENCE_ANTIFRAUD_CODE } from '../../src/modules/recurrence/charge-attempt.js';
import { freshDatabase, secondConnection, testDialect, type TestDatabase } from '../support/database.js';
import { RetryLater } from '../../src/jobs/registry.js';
import { liftVelocity } from './support.js';
import { world, type World } from './world.js';

/**
 * A billing run charges in batches: the charge jobs claimed together are claimed on their
 * billing rows in one statement, their payments made at once, their outcomes recorded in one
 * transaction; and still each billing is charged exactly once.
 */
describe(`billing charges in batches (${testDialect})`, () => {
  let w: World;
  const extra: { close(): Promise<void> }[] = [];
  const restore: (() => void)[] = [];
  afterEach(async () => {
    for (const undo of restore.splice(0)) undo();
    for (const c of extra.splice(0)) await c.close();
    await w.t.close();
  });

  const db = () => w.t.ctx.database.db;
  const sandbox = () => w.t.ctx.acquirer.sandbox;

  /** Replaces `object[name]` for this test; `wrap` gets the original. */
  function patch<T extends object, K extends keyof T>(object: T, name: K, wrap: (original: T[K]) => T[K]): void {
    const original = object[name];
    object[name] = wrap(original);
    restore.push(() => {
      object[name] = original;
    });
  }

  /** `n` subscriptions of one plan whose billing 1 falls due together (within the same minute) a day from now. */
  async function dueTogether(n: number): Promise<string[]> {
    await liftVelocity(w.t, w.m);
    const planId = await w.api.plan({ trialDays: 1 });
    for (let i = 0; i < n; i++) await w.api.subscribe(planId, w.vaultId, `B${i}`);
    const billings = await w.api.billings();
    expect(billings).toHaveLength(n);
    return billings.map((b) => b.id as string);
  }

  /**
   * Counts the sandbox acquirer's authorizations in flight at once. Each waits (at most 2 s) until
   * `expected` are in flight, as a remote acquirer's latency would keep them: run one after
   * another, they would never be more than one.
   */
  function watchAuthorizations(expected: number): { most: () => number } {
    let running = 0;
    let most = 0;
    let all: () => void = () => {};
    const gathered = new Promise<void>((resolve) => (all = resolve));
    patch(sandbox(), 'authorize', (original) => async (...args) => {
      most = Math.max(most, ++running);
      if (running >= expected) all();
      try {
        await Promise.race([gathered, new Promise((r) => setTimeout(r, 2000))]);
        return await original.apply(sandbox(), args);
      } finally {
        running--;
      }
    });
    return { most: () => most };
  }

  async function expectPaidOnce(billingIds: string[]): Promise<void> {
    for (const id of billingIds) {
      expect(await w.api.payments(id)).toMatchObject([{ status: 'Authorized' }]);
      expect(await w.api.billing(id)).toMatchObject({ status: 'Paid', attemptsHistory: [{ returnCode: '00' }] });
    }
    const seconds = await db().selectFrom('billings').select('subscription_id').where('installment', '=', 2).where('merchant_id', '=', w.m.merchantId).execute();
    expect(seconds).toHaveLength(billingIds.length);
  }

  it('claims a batch once, calls the acquirer for all of it at once, and records its outcomes together', async () => {
    w = await world();
    const ids = await dueTogether(12);
    const claims: number[] = [];
    const records: number[] = [];
    patch(billingsRepository, 'claimMany', (original) => async (...args) => {
      claims.push(args[1].length);
      return original.apply(billingsRepository, args);
    });
    patch(billingsRepository, 'recordMany', (original) => async (...args) => {
      records.push(args[1].length);
      return original.apply(billingsRepository, args);
    });
    const acquirer = watchAuthorizations(12);
    const before = sandbox().authorizeCalls;

    await w.clk.days(1);

    expect(claims).toEqual([12]);
    expect(records).toEqual([12]);
    expect(acquirer.most()).toBe(12);
    expect(sandbox().authorizeCalls - before).toBe(12);
    await expectPaidOnce(ids);
  });

  it("records a batch's payments together: one insert, one read of their cards, one outcome statement on PostgreSQL; a charge costs less than a payment alone", async () => {
    let counting = false;
    let statements = 0;
    const batchWrites = { inserts: 0, vaultReads: 0, outcomes: 0 };
    const queryLog = (event: LogEvent) => {
      // Transaction control is left out: the SQLite driver's commits do not go through Kysely.
      if (!counting || event.level !== 'query' || /^\s*(begin|commit|rollback)/i.test(event.query.sql)) return;
      statements++;
      if (/^\s*insert into "payments"/i.test(event.query.sql)) batchWrites.inserts++;
      if (/from "vault_cards"/i.test(event.query.sql)) batchWrites.vaultReads++;
      if (/^\s*with answers/i.test(event.query.sql)) batchWrites.outcomes++;
    };
    w = await world({ database: () => freshDatabase({ queryLog }) });
    const ids = await dueTogether(32);
    // The payment of one billing charge on its own, as the run makes each.
    const [first] = await w.api.billings();
    const payer = { merchantId: w.m.merchantId, accountNumber: w.m.accountNumber };
    const body = { payment: { transactionType: 'credit' as const, amount: 1260, productType: 'avista' as const, installments: 1 }, sellerInfo: { codeAntiFraud: RECURRENCE_ANTIFRAUD_CODE }, cardInfo: { vaultId: w.vaultId, cardholderName: 'MARIA SILVA' } };
    counting = true;
    expect((await w.t.ctx.payments.create(payer, body, { billingId: first.id, paymentId: '0d2c7a4e-5b6f-4a1c-9e8d-7f6a5b4c3d2e' })).kind).toBe('recorded');
    counting = false;
    const payment = statements;
    await db().deleteFrom('payments').where('payment_id', '=', '0d2c7a4e-5b6f-4a1c-9e8d-7f6a5b4c3d2e').execute();

    statements = 0;
    batchWrites.inserts = 0;
    batchWrites.vaultReads = 0;
    batchWrites.outcomes = 0;
    counting = true;
    await w.clk.days(1);
    counting = false;
    await expectPaidOnce(ids);
    // The batch's payments are recorded together: one insert of their rows, one read of their cards for the batch and one for the payments.
    expect(batchWrites).toEqual({ inserts: 1, vaultReads: 2, outcomes: testDialect === 'postgres' ? 1 : 0 });
    // So a charge costs less than a payment made alone.
    expect(statements / ids.length).toBeLessThan(payment - 1);
  });

  it('two runners given the same billings (duplicate jobs, another instance) charge each one once', async () => {
    w = await world();
    const ids = await dueTogether(10);
    // The second runner: on PostgreSQL another instance with a pool of its own, else this one.
    let other: AppContext = w.t.ctx;
    if (testDialect === 'postgres') {
      const otherDb = await secondConnection(w.t.ctx.database as TestDatabase);
      extra.push({ close: () => otherDb.close() });
      const config = loadConfig({ GATEWAY_MODE: 'sandbox', ADMIN_API_KEY: 'test-admin-key-0123456789abcdef0123', PASSWORD_HASH_COST: '10', LOG_LEVEL: 'silent' });
      other = await createContext(config, { database: otherDb, logger: createLogger('silent') });
    }
    const payloads = ids.map((billingId) => ({ billingId, attempt: 0 }));
    const before = sandbox().authorizeCalls + (other === w.t.ctx ? 0 : other.acquirer.sandbox.authorizeCalls);
    // In opposite orders: the claims lock the rows in one order all the same.
    const results = await Promise.all([w.t.ctx.recurrence.engine.chargeBatch(payloads), other.recurrence.engine.chargeBatch([...payloads].reverse())]);
    // A runner that finds the other's payment in flight waits for it (RetryLater); none fails.
    expect(results.flat().filter((r) => r !== undefined && !(r instanceof RetryLater)).map(String)).toEqual([]);
    const after = sandbox().authorizeCalls + (other === w.t.ctx ? 0 : other.acquirer.sandbox.authorizeCalls);
    expect(after - before).toBe(ids.length);
    await expectPaidOnce(ids);
  });

  it('a run that dies mid batch (half the payments made, nothing recorded) resumes: each billing is paid once', async () => {
    w = await world();
    const ids = await dueTogether(8);
    const unpaid = new Set(ids.filter((_, i) => i % 2 === 1));
    // The process dies: the odd billings' payments are never made, and no outcome is recorded.
    patch(w.t.ctx.payments, 'createMany', (original) => async (items) => {
      await original.call(w.t.ctx.payments, items.filter((item) => !unpaid.has(item.billingId)));
      throw new Error('killed before the other payments');
    });
    patch(billingsRepository, 'recordMany', () => async () => {
      throw new Error('killed before the outcomes');
    });
    const before = sandbox().authorizeCalls;
    const results = await w.t.ctx.recurrence.engine.chargeBatch(ids.map((billingId) => ({ billingId, attempt: 0 })));
    expect(results.every((r) => r instanceof Error)).toBe(true);
    expect(sandbox().authorizeCalls - before).toBe(ids.length / 2);
    const claimed = await db().selectFrom('billings').select(['billing_id', 'status', 'charging_payment_id']).where('billing_id', 'in', ids).execute();
    expect(claimed.every((b) => b.status === 'Opened' && b.charging_payment_id !== null)).toBe(true);
    for (const undo of restore.splice(0)) undo();

    // The charge jobs run again (as after a restart): the made payments are read back, the others made once.
    await w.clk.days(1);
    expect(sandbox().authorizeCalls - before).toBe(ids.length);
    await expectPaidOnce(ids);
    // Under the payment ids the dead run claimed.
    for (const { billing_id, charging_payment_id } of claimed) {
      expect((await w.api.billing(billing_id)).attemptsHistory).toMatchObject([{ paymentId: charging_payment_id }]);
    }
  });

  it('a twin run that makes a resumed attempt\'s payment first: the other reads its row back and nothing fails or pays twice', async () => {
    w = await world();
    const ids = await dueTogether(4);
    // A run claims every billing and dies before paying any.
    patch(w.t.ctx.payments, 'createMany', () => async () => {
      throw new Error('killed before the payments');
    });
    const payloads = ids.map((billingId) => ({ billingId, attempt: 0 }));
    expect((await w.t.ctx.recurrence.engine.chargeBatch(payloads)).every((r) => r instanceof Error)).toBe(true);
    for (const undo of restore.splice(0)) undo();

    // Resumed, each payment is made by a twin (another instance's duplicate job) between our read and our insert.
    patch(w.t.ctx.payments, 'create', (original) => async (...args) => {
      await original.apply(w.t.ctx.payments, args);
      return original.apply(w.t.ctx.payments, args);
    });
    const before = sandbox().authorizeCalls;
    const results = await w.t.ctx.recurrence.engine.chargeBatch(payloads);
    expect(results.filter((r) => r !== undefined).map(String)).toEqual([]);
    expect(sandbox().authorizeCalls - before).toBe(ids.length);
    await expectPaidOnce(ids);
  });
});
