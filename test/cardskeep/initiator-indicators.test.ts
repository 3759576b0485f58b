import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CieloStandIn, gatewayEnvFor, STANDIN_MERCHANT_ID, STANDIN_MERCHANT_KEY } from '../standins/cielo.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { cardNumber, paymentBody, tokenize, vault } from '../support/cards.js';
import { clock, liftVelocity, recurrence } from '../recurrence/support.js';

const PAY = '/gateway/v1/payments';

/**
 * Who started each charge, as the Cielo stand-in receives it: Payment.InitiatedTransactionIndicator
 * (C1 for the cardholder, M1 for a subscription's billing), Payment.Recurrent, the first
 * charge's IssuerTransactionId on later merchant-initiated ones, CreditCard.CardOnFile.
 */
describe(`stored-credential indicators through Cielo (stand-in, ${testDialect})`, () => {
  let cielo: CieloStandIn;
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    cielo = await new CieloStandIn({ random: () => 0 }).start();
    t = await testApp({ env: gatewayEnvFor(cielo, 2000) });
    m = await t.merchant();
    await liftVelocity(t, m);
  });
  afterAll(async () => {
    await t.close();
    await cielo.stop();
  });
  const ordersOf = async (billingIds: string[]) =>
    (await t.ctx.database.db.selectFrom('payments').select(['payment_id', 'billing_id']).where('billing_id', 'in', billingIds).orderBy('created_at').execute()).map((p) => p.payment_id);

  it('a buyer\'s payment is cardholder-initiated (C1): with a new card no stored credential, with a stored card CardOnFile Used', async () => {
    const byToken = await t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ numberToken: await tokenize(t, m, cardNumber('5555', { last: 1 })) }) });
    expect(byToken.json().status).toBe('Authorized');
    expect(cielo.credentialsOf(byToken.json().paymentId)).toEqual([
      expect.objectContaining({ category: 'C1', subcategory: 'CredentialsOnFile', recurrent: false, issuerTransactionId: undefined, cardOnFileUsage: undefined }),
    ]);
    const vaultId = await vault(t, m, cardNumber('5555', { last: 4 }));
    const byVault = await t.inject({ method: 'POST', url: PAY, headers: m.headers, payload: paymentBody({ vaultId }) });
    expect(cielo.credentialsOf(byVault.json().paymentId)).toEqual([expect.objectContaining({ category: 'C1', recurrent: false, cardOnFileUsage: 'Used', cardOnFileReason: 'Unscheduled' })]);
  });

  it("a billing's charge is merchant-initiated (M1, Recurrent) with the network reference of the card's zero auth", async () => {
    const s = await t.merchant();
    await liftVelocity(t, s);
    const r = recurrence(t, s);
    const stored = await t.inject({ method: 'POST', url: '/gateway/v1/vaults/cards', headers: s.headers, payload: { cardNumber: cardNumber('5555', { last: 1 }), expirationMonth: '12', expirationYear: '2035', securityCode: '123', cardholderName: 'ANA', verify: true } });
    expect(stored.statusCode, stored.body).toBe(201);
    const { network_reference } = await t.ctx.database.db.selectFrom('vault_cards').select('network_reference').where('vault_id', '=', stored.json().vaultId).executeTakeFirstOrThrow();
    const planId = await r.plan();
    await r.subscribe(planId, stored.json().vaultId);
    await clock(t).runDue();
    const [billing] = await r.billings();
    expect(billing.status).toBe('Paid');
    const [paymentId] = await ordersOf([billing.id]);
    expect(cielo.credentialsOf(paymentId)).toEqual([
      expect.objectContaining({ category: 'M1', subcategory: 'Subscription', recurrent: true, issuerTransactionId: network_reference, cardOnFileUsage: 'Used', cardOnFileReason: 'Recurring' }),
    ]);
  });

  it("without a zero auth, the first billing's charge goes without a reference and the next one carries the first one's", async () => {
    const s = await t.merchant();
    await liftVelocity(t, s);
    const r = recurrence(t, s);
    const vaultId = await vault(t, s, cardNumber('4532', { last: 4 }));
    const planId = await r.plan();
    await r.subscribe(planId, vaultId);
    await clock(t).runDue();
    await clock(t).days(32);
    const billings = (await r.billings()).filter((b) => b.status === 'Paid');
    expect(billings.length).toBeGreaterThanOrEqual(2);
    const [first, second] = await ordersOf(billings.map((b) => b.id));
    const [firstSale] = cielo.credentialsOf(first);
    expect(firstSale).toMatchObject({ category: 'M1', recurrent: true, issuerTransactionId: undefined });
    expect(cielo.credentialsOf(second)).toEqual([expect.objectContaining({ category: 'M1', recurrent: true, issuerTransactionId: cielo.issuerTransactionIdOf(firstSale.PaymentId) })]);
  });

  it('the stand-in refuses an unknown category and a merchant-initiated sale without a stored credential', async () => {
    const send = (payment: Record<string, unknown>) =>
      fetch(`${cielo.apiUrl}/1/sales/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', MerchantId: STANDIN_MERCHANT_ID, MerchantKey: STANDIN_MERCHANT_KEY },
        body: JSON.stringify({ MerchantOrderId: 'indicator-check', Payment: { Type: 'CreditCard', Amount: 100, Installments: 1, CreditCard: { CardNumber: cardNumber('5555', { last: 1 }), Holder: 'A', ExpirationDate: '12/2035', Brand: 'Master' }, ...payment } }),
      });
    expect((await send({ InitiatedTransactionIndicator: { Category: 'X9', Subcategory: 'Subscription' } })).status).toBe(400);
    expect((await send({ InitiatedTransactionIndicator: { Category: 'M1', Subcategory: 'Subscription' } })).status).toBe(400);
    expect((await send({ InitiatedTransactionIndicator: { Category: 'C1', Subcategory: 'CredentialsOnFile' } })).status).toBe(201);
  });
});
