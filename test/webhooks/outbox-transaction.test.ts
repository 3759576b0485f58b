import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { recordNotifications, type AccountEvent } from '../../src/modules/webhooks/outbox.js';
import type { Executor } from '../../src/db/connection.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { subscribed, webhookMerchant } from './support.js';

/**
 * An account's subscriptions are read once per transaction (a billing's end and its next
 * billing's opening both notify): every change of the transaction is notified to the set first
 * read, and a transaction of its own reads afresh.
 */
describe(`the outbox reads an account's subscriptions once per transaction (${testDialect})`, () => {
  let t: TestApp;
  let m: Awaited<ReturnType<typeof webhookMerchant>>;
  beforeAll(async () => {
    t = await testApp();
    m = await webhookMerchant(t);
    await subscribed(t, m, 'https://hooks.example.com/in');
  });
  afterAll(() => t.close());

  const event = (nsu: string): AccountEvent => ({ merchantId: m.merchantId, accountNumber: m.accountNumber, type: 'TransactionStatus', nsu, codAuth: 'ABC123', installmentNumber: 0, oldValue: '', newValue: 'Authorized', at: t.ctx.clock.now().toISOString() });
  const notifications = async () => (await t.ctx.database.db.selectFrom('webhook_notifications').select('id').where('account_number', '=', m.accountNumber).execute()).length;

  /** Runs `work`, answering how many statements read webhook_subscriptions (PostgreSQL; null on SQLite). */
  async function subscriptionReads(work: () => Promise<void>): Promise<number | null> {
    if (testDialect !== 'postgres') return void (await work()), null;
    let reads = 0;
    const original = pg.Client.prototype.query;
    (pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
      const q = args[0] as string | { text: string };
      if ((typeof q === 'string' ? q : q.text).includes('from "webhook_subscriptions"')) reads += 1;
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
    try {
      await work();
    } finally {
      pg.Client.prototype.query = original;
    }
    return reads;
  }

  it('two changes in one transaction: both notified, the subscriptions read once', async () => {
    const before = await notifications();
    const reads = await subscriptionReads(() =>
      t.ctx.database.db.transaction().execute(async (trx: Executor) => {
        await recordNotifications(trx, t.ctx.queue, [event('tx-1')]);
        await recordNotifications(trx, t.ctx.queue, [event('tx-2')]);
      }),
    );
    expect(await notifications()).toBe(before + 2);
    if (reads !== null) expect(reads).toBe(1);
  });

  it('each transaction reads afresh: a subscription removed between two is not notified by the second', async () => {
    const reads = await subscriptionReads(async () => {
      await t.ctx.database.db.transaction().execute((trx: Executor) => recordNotifications(trx, t.ctx.queue, [event('a-1')]));
      await t.ctx.database.db.transaction().execute((trx: Executor) => recordNotifications(trx, t.ctx.queue, [event('a-2')]));
    });
    if (reads !== null) expect(reads).toBe(2);
    await t.ctx.database.db.deleteFrom('webhook_subscriptions').where('account_number', '=', m.accountNumber).execute();
    const before = await notifications();
    await t.ctx.database.db.transaction().execute((trx: Executor) => recordNotifications(trx, t.ctx.queue, [event('a-3')]));
    expect(await notifications()).toBe(before);
  });
});
