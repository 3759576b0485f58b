import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { clock, recurrence } from '../recurrence/support.js';
import { Receiver } from '../webhooks/receiver.js';
import { listening } from '../events/support.js';

describe(`subscription.card_expiring on the business clock (${testDialect})`, () => {
  let t: TestApp;
  const receiver = new Receiver();
  beforeAll(async () => {
    await receiver.start();
    t = await testApp();
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  it('is told 30 days before the card expires, once per card, as the sandbox clock moves', async () => {
    const { m } = await listening(t, receiver, '/expiring', ['*']);
    const r = recurrence(t, m);
    const now = t.ctx.clock.now();
    // A card that expires at the end of the month three months from now.
    const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 3, 1));
    const month = String(end.getUTCMonth() === 0 ? 12 : end.getUTCMonth()).padStart(2, '0');
    const year = String(end.getUTCMonth() === 0 ? end.getUTCFullYear() - 1 : end.getUTCFullYear());
    const stored = await t.inject({ method: 'POST', url: '/gateway/v1/vaults/cards', headers: m.headers, payload: { cardNumber: '4111111111111111', expirationMonth: month, expirationYear: year, cardholderName: 'ANA' } });
    const vaultId = stored.json().vaultId;
    const subscriptionId = await r.subscribe(await r.plan(), vaultId);
    const told = async () =>
      (await t.ctx.database.db.selectFrom('webhook_notifications').select('payload').where('merchant_id', '=', m.merchantId).where('type', '=', 'subscription.card_expiring').execute()).map((n) => JSON.parse(n.payload).data);
    const warnAt = end.getTime() - 30 * 86_400_000;
    await clock(t).to(new Date(warnAt - 86_400_000));
    expect(await told()).toEqual([]);
    await clock(t).to(new Date(warnAt + 60_000));
    expect(await told()).toEqual([{ subscriptionId, planId: expect.any(String), vaultId, brand: 'visa', last4: '1111', expirationMonth: month, expirationYear: year }]);
    await clock(t).days(20);
    expect(await told()).toHaveLength(1);
  });
});
