import type { LogEvent } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CieloStandIn, gatewayEnvFor } from '../standins/cielo.js';
import { freshDatabase, testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { cardNumber, paymentBody, vault } from '../support/cards.js';
import { liftVelocity } from '../recurrence/support.js';

/**
 * The statement budget of the payment path (docs/architecture.md, "Statement budgets"), counted
 * through Kysely's `log` option, the query layer's public hook: every statement the gateway
 * sends, BEGIN and COMMIT included where the driver sends them (PostgreSQL). An approved card
 * payment through a remote acquirer makes at most 6 statements and 2 commits on PostgreSQL;
 * the sandbox acquirer adds its own ledger write. What trails a sale (notifications,
 * receivables) is the relay's, in batches: counted apart, per batch.
 */
const BUDGET = { statements: 6, commits: 2 };

interface Count {
  statements: number;
  commits: number;
  sql: string[];
}

/** Statements and commits of a stretch of the log: a COMMIT, or a write outside BEGIN ... COMMIT (autocommit). */
function countOf(sql: string[]): Count {
  let inTransaction = false;
  let commits = 0;
  for (const text of sql) {
    const verb = text.trimStart().slice(0, 8).toLowerCase();
    if (verb.startsWith('begin')) inTransaction = true;
    else if (verb.startsWith('commit')) {
      inTransaction = false;
      commits++;
    } else if (verb.startsWith('rollback')) inTransaction = false;
    else if (!inTransaction && !verb.startsWith('select')) commits++;
  }
  return { statements: sql.length, commits, sql };
}

describe(`statement budget of the payment path (${testDialect})`, () => {
  const log: string[] = [];
  let counting = false;
  const queryLog = (event: LogEvent) => {
    if (counting) log.push(event.query.sql);
  };
  /** The statements `work` makes. The app's own inject (no drain of the relay after it): the payment path alone. */
  async function counted(work: () => Promise<unknown>): Promise<Count> {
    log.length = 0;
    counting = true;
    try {
      await work();
    } finally {
      counting = false;
    }
    return countOf([...log]);
  }

  for (const acquirer of ['cielo', 'sandbox'] as const) {
    describe(`${acquirer} acquirer`, () => {
      let cielo: CieloStandIn | undefined;
      let t: TestApp;
      let m: TestMerchant;
      let vaultIds: string[];
      beforeAll(async () => {
        if (acquirer === 'cielo') cielo = await new CieloStandIn({ random: () => 0 }).start();
        t = await testApp({ env: cielo ? gatewayEnvFor(cielo, 2_000) : {}, database: () => freshDatabase({ queryLog }) });
        m = await t.merchant();
        await liftVelocity(t, m);
        vaultIds = [];
        // Cards Cielo's sandbox approves (last digit 1), one per payment: velocity is not the subject.
        for (let i = 0; i < 24; i++) vaultIds.push(await vault(t, m, cardNumber(`4532${String(i).padStart(3, '0')}`, { last: 1 })));
      });
      afterAll(async () => {
        await t.close();
        await cielo?.stop();
      });

      const pay = (vaultId: string) => t.app.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: paymentBody({ vaultId }) });

      it(`an approved payment: at most ${BUDGET.statements} statements and ${BUDGET.commits} commits${acquirer === 'sandbox' ? ', plus the sandbox ledger write' : ''}`, async () => {
        // The first payment of a merchant fills what is kept between calls (credential, settings).
        expect((await pay(vaultIds[0])).statusCode).toBe(201);
        let status = 0;
        const count = await counted(async () => {
          const res = await pay(vaultIds[1]);
          status = res.statusCode;
          expect(res.json()).toMatchObject({ status: 'Authorized' });
        });
        expect(status).toBe(201);
        const ledger = acquirer === 'sandbox' ? 1 : 0;
        expect(count.statements, count.sql.join('\n')).toBeLessThanOrEqual(BUDGET.statements + ledger);
        if (testDialect === 'postgres') expect(count.commits, count.sql.join('\n')).toBe(BUDGET.commits + ledger);
        // Nothing that trails the sale is on its path: no notification, receivable or job is written.
        expect(count.sql.filter((s) => /into "(webhook_notifications|receivables|jobs)"/.test(s))).toEqual([]);
      });

      it('the relay makes what trails the sales in batches: its statements do not grow with the payments', async () => {
        await t.ctx.payments.settleBackground();
        const few = await (async () => {
          for (const id of vaultIds.slice(2, 4)) expect((await pay(id)).statusCode).toBe(201);
          return counted(() => t.ctx.payments.settleBackground());
        })();
        const many = await (async () => {
          for (const id of vaultIds.slice(4, 24)) expect((await pay(id)).statusCode).toBe(201);
          return counted(() => t.ctx.payments.settleBackground());
        })();
        expect(many.statements, many.sql.join('\n')).toBe(few.statements);
        const receivables = await t.ctx.database.db.selectFrom('receivables').select('source_id').where('merchant_id', '=', m.merchantId).execute();
        expect(new Set(receivables.map((r) => r.source_id)).size).toBe(24);
      });
    });
  }
});
