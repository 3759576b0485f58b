import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { issue, slipBody } from './support.js';

/** A money request never drops a field quietly: every unknown field of the issue body is a 400 naming it. */
describe(`bank slip issue: unknown fields (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant({ api: 'integration' });
  });
  afterAll(() => t.close());

  const count = async () => Number((await t.ctx.database.db.selectFrom('bankslips').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('at the top level, in payer and in overdue, all named at once; nothing is issued', async () => {
    const before = await count();
    const body = {
      ...slipBody({ coupon: 'X5', interest: 1 }, { email: 'maria@example.com' }),
      overdue: { allow: true, dateLimit: '2099-01-01', penaltyPercent: 2, fine: 3 },
    };
    const res = await issue(t, m, body);
    expect(res.statusCode).toBe(400);
    const errors = res.json() as { tag: string; description: string }[];
    expect(errors.map((e) => e.tag).sort()).toEqual(['coupon', 'interest', 'overdue.fine', 'payer.email']);
    for (const e of errors) expect(e.description).toBe(`${e.tag} is not a field of this request; remove it (unknown fields are refused, never dropped).`);
    expect(await count()).toBe(before);
  });

  it('the documented fields alone are still accepted', async () => {
    const res = await issue(t, m, { ...slipBody({ pix: true }), overdue: { allow: true, dateLimit: '2099-01-01', penaltyPercent: 2, interestPercentPerMonth: 1 } });
    expect(res.statusCode, res.body).toBe(201);
  });
});
