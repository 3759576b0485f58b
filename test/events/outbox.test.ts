import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receives, typesOf, unknownTypes } from '../../src/modules/webhooks/event-types.js';
import { recordPaymentChange, type PaymentSubject } from '../../src/modules/webhooks/outbox.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { subscribe, webhookMerchant } from '../webhooks/support.js';

/** Counts the statements run through it (every result passes here). */
function counter() {
  const plugin: KyselyPlugin & { count: number } = {
    count: 0,
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      plugin.count += 1;
      return args.result;
    },
  };
  return plugin;
}

describe(`the event outbox (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  const subject = (m: { merchantId: string; accountNumber: number }): PaymentSubject => ({
    payment_id: 'pay-1',
    merchant_id: m.merchantId,
    account_number: m.accountNumber,
    nsu: '1',
    authorization_code: 'A1',
    url_callback: null,
    amount: 100,
    reference_transaction: null,
  });

  /** Records a payment's change through a counting executor; answers the statements run and the rows written. */
  async function change(m: { merchantId: string; accountNumber: number }, to: string) {
    const plugin = counter();
    await t.ctx.database.db.transaction().execute((trx) => recordPaymentChange(trx.withPlugin(plugin), t.ctx.queue, subject(m), '', to, t.ctx.clock.now().toISOString()));
    const rows = await t.ctx.database.db.selectFrom('webhook_notifications').select('type').where('account_number', '=', m.accountNumber).orderBy('id').execute();
    return { statements: plugin.count, types: rows.map((r) => r.type) };
  }

  it('a payment of an account without a subscription costs one look-up, events or not', async () => {
    const m = await webhookMerchant(t);
    expect(await change(m, 'Authorized')).toEqual({ statements: 1, types: [] });
    expect(await change(m, 'Denied')).toEqual({ statements: 1, types: [] });
  });

  it('with a subscription: still one look-up, then only the chosen types are written', async () => {
    const plain = await webhookMerchant(t);
    expect((await subscribe(t, plain, { url: 'http://127.0.0.1:9/h' })).statusCode).toBe(200);
    const plainChange = await change(plain, 'Authorized');
    expect(plainChange.types).toEqual(['TransactionStatus']);
    const all = await webhookMerchant(t);
    expect((await subscribe(t, all, { url: 'http://127.0.0.1:9/h', types: ['*'] })).statusCode).toBe(200);
    const allChange = await change(all, 'Authorized');
    expect(allChange.types).toEqual(['TransactionStatus', 'payment.authorized']);
    // One look-up, one insert of the rows, the delivery jobs: the same count whatever was chosen.
    expect(allChange.statements).toBe(plainChange.statements);
    expect((await change(all, 'Denied')).types).toEqual(['TransactionStatus', 'payment.authorized', 'payment.denied']);
  });

  it('the type rules: the default is the conciliation family, "*" is everything, unknown names are named', () => {
    expect(typesOf(null)).toEqual(['TransactionStatus', 'InstallmentStatus', 'BankSlipStatus']);
    expect(receives(null, 'TransactionStatus')).toBe(true);
    expect(receives(null, 'billing.denied')).toBe(false);
    expect(receives('["*"]', 'billing.denied')).toBe(true);
    expect(receives('["billing.denied"]', 'TransactionStatus')).toBe(false);
    expect(unknownTypes(['*', 'billing.denied', 'billing.nope', 'transactionstatus'])).toEqual(['billing.nope', 'transactionstatus']);
  });
});
