import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp } from '../support/harness.js';
import { advanceTo, pay, search, settlementMerchant } from './support.js';

/** A sale whose D+30 falls on a bank holiday or a weekend is expected on the next business day. */
describe(`receipt dates on business days (${testDialect})`, () => {
  let t: TestApp;
  let m: Awaited<ReturnType<typeof settlementMerchant>>;
  beforeAll(async () => {
    t = await testApp();
    m = await settlementMerchant(t);
  });
  afterAll(() => t.close());

  // In time order: the sandbox clock only moves forward.
  const cases: [string, string, string][] = [
    ['Carnival (2027-02-08 Mon and 02-09 Tue)', '2027-01-09T15:00:00.000Z', '2027-02-10'],
    ['Good Friday (2027-03-26), then the weekend', '2027-02-24T15:00:00.000Z', '2027-03-29'],
    ['a weekend (2027-05-02 is a Sunday)', '2027-04-02T15:00:00.000Z', '2027-05-03'],
    ['Christmas (2028-12-25, a Monday)', '2028-11-25T15:00:00.000Z', '2028-12-26'],
  ];
  for (const [name, saleAt, expected] of cases) {
    it(`D+30 on ${name} -> ${expected}, settled that day`, async () => {
      await advanceTo(t, saleAt);
      const p = await pay(t, m, { amount: 5000, installments: 1 });
      const find = async () => (await search(t, m.integration, 'search-by-code', { accountNumber: m.accountNumber, nsu: p.nsu })).json()[0];
      expect(await find()).toMatchObject({ receivedDateForeast: `${expected}T00:00:00.000Z`, receivedStatus: 'A' });
      // Not settled on the holiday itself...
      const dayBefore = new Date(Date.parse(`${expected}T00:00:00.000Z`) - 3_600_000).toISOString();
      await advanceTo(t, dayBefore);
      expect((await find()).receivedStatus).toBe('A');
      // ...but on the business day.
      await advanceTo(t, `${expected}T01:00:00.000Z`);
      expect(await find()).toMatchObject({ receivedStatus: 'P', receivedDateEffective: `${expected}T00:00:00.000Z` });
    });
  }
});
