import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL, testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { advanceTo, pay, settlementMerchant } from './support.js';

/**
 * PostgreSQL row locks: a refund, a cancel or a dispute locks a payment and then its
 * installments; the daily sweep must take them in the same order, or the two deadlock and one
 * of them fails. Played with a second connection that does what a refund does.
 */
describe.skipIf(testDialect !== 'postgres')('the sweep locks a payment before its installments, as a refund does (postgres)', () => {
  let t: TestApp;
  let client: pg.Client;
  beforeAll(async () => {
    t = await testApp();
    client = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${t.ctx.database.schema}` });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await t?.close();
  });

  it('a refund holding the payment while the sweep runs takes the installments at once; both finish', async () => {
    const m = await settlementMerchant(t);
    const payment = await pay(t, m, { amount: 5_000, installments: 1 });
    const [{ expected_date: due }] = await t.ctx.database.db.selectFrom('receivables').select('expected_date').where('source_id', '=', payment.paymentId).execute();
    await advanceTo(t, new Date(Date.parse(`${due}T00:00:00.000Z`) - 60_000).toISOString());

    // The "refund": the payment first.
    await client.query('begin');
    await client.query('select payment_id from payments where payment_id = $1 for update', [payment.paymentId]);
    // The sweep of the due date runs meanwhile, and waits for that lock.
    const sweep = t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { to: `${due}T00:00:01.000Z` } });
    for (let i = 0; i < 200; i++) {
      const waiting = await t.ctx.database.db
        .selectFrom('pg_stat_activity' as never)
        .select('pid' as never)
        .where('wait_event_type' as never, '=', 'Lock' as never)
        .where('datname' as never, '=', client.database as never)
        .execute();
      if (waiting.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    // Then the installments: not held by the sweep, so no wait and no deadlock.
    await client.query("set local lock_timeout = '3s'");
    const rows = await client.query('select id from receivables where source_id = $1 for update', [payment.paymentId]);
    expect(rows.rowCount).toBeGreaterThan(0);
    await client.query('commit');
    const answer = await sweep;
    expect(answer.statusCode, answer.body).toBe(200);
    const paid = await t.inject({ method: 'GET', url: `/gateway/v1/payments/${payment.paymentId}`, headers: m.headers });
    expect(paid.json().status).toBe('Paid');
  });
});
