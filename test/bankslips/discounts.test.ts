import { compactVerify, createLocalJWKSet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBrCode } from '../../src/domain/pix.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { advanceTo, inDays, issue, issued, pay, slipBody } from './support.js';

/** Discounts for early payment on a bank slip: validated, shown, charged, and carried by its Pix. */
describe(`bank slip discounts (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant({ api: 'integration' });
  });
  afterAll(() => t.close());

  it('one discount or up to three, shown by date in the detail with the reais each takes off', async () => {
    const due = await inDays(t, 20);
    const one = await issued(t, m, slipBody({ value: 200, dueDate: due, discount: { type: 'fixed', value: 10.5, until: await inDays(t, 5) } }));
    expect(one.discount).toEqual([{ type: 'fixed', value: 10.5, until: await inDays(t, 5), amount: 10.5 }]);
    const three = await issued(t, m, slipBody({ value: 200, dueDate: due, discount: [
      { type: 'fixed', value: 2, until: await inDays(t, 15) },
      { type: 'percent', value: 5, until: await inDays(t, 5) },
      { type: 'percent', value: 2.5, until: await inDays(t, 10) },
    ] }));
    expect(three.discount).toEqual([
      { type: 'percent', value: 5, until: await inDays(t, 5), amount: 10 },
      { type: 'percent', value: 2.5, until: await inDays(t, 10), amount: 5 },
      { type: 'fixed', value: 2, until: await inDays(t, 15), amount: 2 },
    ]);
    expect((await issued(t, m, slipBody({ value: 200, dueDate: due }))).discount).toEqual([]);
  });

  it('refuses a discount that cannot be, tagged with its field, and an unknown field in it; nothing is issued', async () => {
    const due = await inDays(t, 10);
    const cases: [unknown, string][] = [
      [{ type: 'fixed', value: 150.75, until: due }, 'discount.value'],
      [{ type: 'fixed', value: 0.001, until: due }, 'discount.value'],
      [{ type: 'percent', value: 100, until: due }, 'discount.value'],
      [{ type: 'fixed', value: 1, until: await inDays(t, 11) }, 'discount.until'],
      [{ type: 'fixed', value: 1, until: await inDays(t, -1) }, 'discount.until'],
      [[{ type: 'fixed', value: 1, until: due }, { type: 'fixed', value: 2, until: due }], 'discount[1].until'],
      [{ type: 'fixed', value: 1, until: due, note: 'x' }, 'discount'],
      [{ type: 'coupon', value: 1, until: due }, 'discount'],
    ];
    for (const [discount, tag] of cases) {
      const res = await issue(t, m, slipBody({ dueDate: due, discount }));
      expect(res.statusCode, JSON.stringify(discount)).toBe(400);
      expect(res.json().map((e: { tag: string }) => e.tag).join(' '), JSON.stringify(discount)).toContain(tag);
    }
    const four = Array.from({ length: 4 }, (_, i) => ({ type: 'fixed', value: 1, until: `${due.slice(0, 8)}0${i + 1}` }));
    expect((await issue(t, m, slipBody({ dueDate: due, discount: four }))).statusCode).toBe(400);
  });

  it('paid until a discount date, the amount due is the value less that discount; after it, the next one, then the face value', async () => {
    const due = await inDays(t, 10);
    const slip = await issued(t, m, slipBody({ value: 100, dueDate: due, discount: [{ type: 'fixed', value: 7, until: await inDays(t, 2) }, { type: 'fixed', value: 3, until: await inDays(t, 6) }] }));
    await advanceTo(t, `${await inDays(t, 3)}T10:00:00.000Z`);
    const wrong = await pay(t, slip.id, { value: 93 });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()[0].description).toContain('97.00');
    const paid = await pay(t, slip.id, { value: 97 });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json()).toMatchObject({ statusBill: 3, effectivePaymentValue: 97 });
  });

  it("a bolecode's Pix carries the discounts: its location shows the day's desconto and final", async () => {
    const slip = await issued(t, m, slipBody({ value: 100, pix: true, dueDate: await inDays(t, 10), discount: { type: 'percent', value: 4, until: await inDays(t, 3) } }));
    const code = parseBrCode(slip.pixEmv);
    if (!code.ok) throw new Error(code.error);
    const res = await t.inject({ method: 'GET', url: (code.value.locationUrl as string).replace(/^[^/]+/, '') });
    const { payload } = await compactVerify(res.body, createLocalJWKSet((await t.inject({ method: 'GET', url: '/pix/jwks' })).json()));
    expect(JSON.parse(new TextDecoder().decode(payload)).valor).toEqual({ original: '100.00', desconto: '4.00', final: '96.00' });
    const paid = await t.inject({ method: 'POST', url: `/sandbox/pix/cobv/${code.value.txid}/pay`, headers: t.adminHeaders });
    expect(paid.json()).toMatchObject({ amount: 9600, bankSlipId: slip.id });
  });
});
