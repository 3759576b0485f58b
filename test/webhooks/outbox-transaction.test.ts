import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordNotifications, type AccountEvent } from '../../src/modules/webhooks/outbox.js';
import type { Executor } from '../../src/db/connection.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { subscribed, webhookMerchant } from './support.js';

/**
 * Notifications are written in the business transaction (a billing's end and its next billing's
 * opening both notify in one): every change of a committed transaction is notified, none of a
 * rolled-back one, and each transaction notifies the subscriptions as they are when it runs.
 */
describe(`the outbox writes an account's notifications in the business transaction (${testDialect})`, () => {
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

  it('two changes in one transaction: both notified', async () => {
    const before = await notifications();
    await t.ctx.database.db.transaction().execute(async (trx: Executor) => {
      await recordNotifications(trx, t.ctx.queue, [event('tx-1')]);
      await recordNotifications(trx, t.ctx.queue, [event('tx-2')]);
    });
    expect(await notifications()).toBe(before + 2);
  });

  it('a transaction that rolls back notifies nothing', async () => {
    const before = await notifications();
    await expect(
      t.ctx.database.db.transaction().execute(async (trx: Executor) => {
        await recordNotifications(trx, t.ctx.queue, [event('rb-1')]);
        throw new Error('the business change failed');
      }),
    ).rejects.toThrow('the business change failed');
    expect(await notifications()).toBe(before);
  });

  it('each transaction reads afresh: a subscription removed between two is not notified by the second', async () => {
    const before = await notifications();
    await t.ctx.database.db.transaction().execute((trx: Executor) => recordNotifications(trx, t.ctx.queue, [event('a-1')]));
    expect(await notifications()).toBe(before + 1);
    await t.ctx.database.db.deleteFrom('webhook_subscriptions').where('account_number', '=', m.accountNumber).execute();
    await t.ctx.database.db.transaction().execute((trx: Executor) => recordNotifications(trx, t.ctx.queue, [event('a-2')]));
    expect(await notifications()).toBe(before + 1);
  });
});
