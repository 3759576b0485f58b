import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_REPLACED_CARD, SANDBOX_REPLACEMENT_CARD } from '../../src/acquirer/sandbox/acquirer.js';
import { CieloStandIn, gatewayEnvFor } from '../standins/cielo.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { cardNumber, vault } from '../support/cards.js';
import { clock, liftVelocity, recurrence } from '../recurrence/support.js';
import { Receiver } from '../webhooks/receiver.js';
import { listening } from '../events/support.js';
import { DashboardClient } from '../dashboard/support.js';
import { textOf } from '../dashboard/merchant-pages-support.js';

async function eventsOf(t: TestApp, merchantId: string, type: string): Promise<{ raw: string; data: Record<string, unknown> }[]> {
  const rows = await t.ctx.database.db.selectFrom('webhook_notifications').select(['payload']).where('merchant_id', '=', merchantId).where('type', '=', type).orderBy('id').execute();
  return rows.map((r) => ({ raw: r.payload, data: JSON.parse(r.payload).data }));
}

describe(`the account updater in the sandbox (${testDialect})`, () => {
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

  it('a replaced card is updated in place (same vaultId, new sealed number and expiry), card.updated without the number, the billing charged again at once, once', async () => {
    const { m } = await listening(t, receiver, '/updater', ['*']);
    const r = recurrence(t, m);
    const vaultId = await vault(t, m, SANDBOX_REPLACED_CARD);
    const planId = await r.plan();
    const subscriptionId = await r.subscribe(planId, vaultId);
    await clock(t).runDue();
    const [billing] = await r.billings();
    expect(billing.status).toBe('Paid');
    const payments = await r.payments(billing.id);
    expect(payments.map((p: { status: string }) => p.status)).toEqual(['Denied', 'Authorized']);
    const detail = await r.billing(billing.id);
    expect(detail.attemptsHistory).toHaveLength(1);
    expect(detail.attemptsHistory[0].returnMessage).toContain('now 0135');

    const stored = await t.ctx.cards.loadVaultCard(t.ctx.database.db, m.merchantId, vaultId);
    expect(stored).toMatchObject({ vaultId, pan: SANDBOX_REPLACEMENT_CARD, last4: '0135', expMonth: '12', expYear: String(t.ctx.clock.now().getUTCFullYear() + 3) });
    const view = (await t.inject({ method: 'GET', url: `/gateway/v1/vaults/cards/${vaultId}`, headers: m.headers })).json();
    expect(view).toMatchObject({ vaultId, maskedNumber: '400000******0135', expirationMonth: '12' });
    expect(await t.ctx.cards.cardHistory(m.merchantId, vaultId)).toEqual([expect.objectContaining({ source: 'account_updater', oldLast4: '0101', newLast4: '0135', oldExpiry: '12/2035' })]);

    const updated = await eventsOf(t, m.merchantId, 'card.updated');
    expect(updated.map((e) => e.data)).toEqual([expect.objectContaining({ vaultId, oldLast4: '0101', newLast4: '0135', source: 'account_updater' })]);
    expect(updated[0].raw).not.toContain(SANDBOX_REPLACEMENT_CARD);
    expect(updated[0].raw).not.toContain(SANDBOX_REPLACED_CARD);
    expect((await eventsOf(t, m.merchantId, 'subscription.card_updated')).map((e) => e.data)).toEqual([{ subscriptionId, planId, vaultId, oldLast4: '0101', newLast4: '0135', source: 'account_updater' }]);
    expect(await eventsOf(t, m.merchantId, 'billing.paid')).toHaveLength(1);

    // The dashboard's subscription page shows the card now and its history, in both languages.
    const c = new DashboardClient(t);
    await c.loginMerchant(m);
    const page = textOf((await c.get(`/dashboard/subscriptions/${subscriptionId}`)).body);
    expect(page).toContain('400000******0135');
    expect(page).toMatch(/final 0101 → final 0135/);
    expect(page).not.toContain(SANDBOX_REPLACEMENT_CARD);

    // The next billing charges the new card once: no replacement any more.
    await clock(t).days(32);
    const second = (await r.billings()).find((b) => b.installment === 2)!;
    expect(second.status).toBe('Paid');
    expect(await r.payments(second.id)).toHaveLength(1);
    expect(await t.ctx.cards.cardHistory(m.merchantId, vaultId)).toHaveLength(1);
  });

  it("a cardholder's own payment with the replaced test card is approved: the updater answers recurring charges only", async () => {
    const m = await t.merchant();
    const vaultId = await vault(t, m, SANDBOX_REPLACED_CARD);
    const res = await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: { payment: { transactionType: 'credit', amount: 1000, productType: 'avista', installments: 1 }, sellerInfo: { codeAntiFraud: '3fa85f64-5717-4562-b3fc-2c963f66afa6' }, cardInfo: { vaultId, cardholderName: 'ANA' } } });
    expect(res.json().status).toBe('Authorized');
    expect(await t.ctx.cards.cardHistory(m.merchantId, vaultId)).toEqual([]);
  });
});

describe(`the account updater through Cielo (Renova Fácil, stand-in, ${testDialect})`, () => {
  let cielo: CieloStandIn;
  let t: TestApp;
  beforeAll(async () => {
    cielo = await new CieloStandIn({ random: () => 0 }).start();
    t = await testApp({ env: gatewayEnvFor(cielo, 2000) });
  });
  afterAll(async () => {
    await t.close();
    await cielo.stop();
  });

  it('Payment.NewCard on a recurring sale replaces the stored card and the billing is paid with it', async () => {
    const m = await t.merchant();
    await liftVelocity(t, m);
    const r = recurrence(t, m);
    const old = cardNumber('4532', { last: 1 });
    const replacement = cardNumber('4539', { last: 4 });
    cielo.forceNewCard({ cardNumber: old, newCardNumber: replacement, expirationDate: '08/2033' });
    const vaultId = await vault(t, m, old);
    await r.subscribe(await r.plan(), vaultId);
    await clock(t).runDue();
    const [billing] = await r.billings();
    expect(billing.status).toBe('Paid');
    const paymentIds = (await r.payments(billing.id)).map((p: { payment_id: string }) => p.payment_id);
    expect(paymentIds).toHaveLength(2);
    const [first, second] = paymentIds.map((id: string) => cielo.credentialsOf(id)[0]);
    expect(first).toMatchObject({ category: 'M1', recurrent: true });
    expect(second).toMatchObject({ category: 'M1', recurrent: true });
    expect(cielo.sales().map((s) => s.Status)).toEqual([3, 2]);
    const stored = await t.ctx.cards.loadVaultCard(t.ctx.database.db, m.merchantId, vaultId);
    expect(stored).toMatchObject({ pan: replacement, last4: replacement.slice(-4), expMonth: '08', expYear: '2033' });
  });
});
