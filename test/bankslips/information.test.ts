import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { BASE, issued, slipBody } from './support.js';

describe(`bank slip information (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let other: TestMerchant;
  let slip: any;
  let foreignSlip: any;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant({ api: 'integration' });
    other = await t.merchant({ api: 'integration' });
    slip = await issued(t, m, slipBody());
    foreignSlip = await issued(t, other, slipBody());
  });
  afterAll(() => t.close());

  const get = (query: string, headers: Record<string, string> = m.headers) => t.inject({ method: 'GET', url: `${BASE}/information?${query}`, headers });

  it('answers the detail record for id_bill, or its alias id, in any letter case', async () => {
    for (const query of [`id_bill=${slip.id}`, `id=${slip.id}`, `id_bill=${slip.id.toUpperCase()}`, `id_bill=${slip.id}&id=${slip.id}`]) {
      const res = await get(`accountNumber=${m.accountNumber}&${query}`);
      expect(res.statusCode, query).toBe(200);
      expect(res.json()).toMatchObject({ id: slip.id, success: true, message: null, status: 2, barCode: slip.barCode, digitableLine: slip.digitableLine });
    }
  });

  it('answers 400 and 404 as {success: false, message}', async () => {
    const cases: [string, number, RegExp][] = [
      [`accountNumber=${m.accountNumber}`, 400, /id_bill is required/],
      [`accountNumber=${m.accountNumber}&id_bill=`, 400, /id_bill is required/],
      [`accountNumber=${m.accountNumber}&id_bill=12345`, 400, /GUID/],
      [`accountNumber=${m.accountNumber}&id_bill=${slip.id}&id=${foreignSlip.id}`, 400, /differ/],
      [`accountNumber=${m.accountNumber}&id_bill=a&id_bill=b`, 400, /./],
      [`accountNumber=abc&id_bill=${slip.id}`, 400, /accountNumber/],
      [`id_bill=${slip.id}`, 400, /accountNumber/],
      [`accountNumber=${m.accountNumber}&id_bill=00000000-0000-4000-8000-000000000000`, 404, /not found/],
      // Another merchant's slip is not found either (no existence leak).
      [`accountNumber=${m.accountNumber}&id_bill=${foreignSlip.id}`, 404, /not found/],
    ];
    for (const [query, status, message] of cases) {
      const res = await get(query);
      expect(res.statusCode, query).toBe(status);
      expect(res.json(), query).toEqual({ success: false, message: expect.stringMatching(message) });
    }
  });

  it('keeps the error array for 401 and 403', async () => {
    const foreign = await get(`accountNumber=${other.accountNumber}&id_bill=${foreignSlip.id}`);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toEqual([{ tag: 'forbidden', description: expect.any(String) }]);
    const anonymous = await get(`accountNumber=${m.accountNumber}&id_bill=${slip.id}`, {});
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()[0].tag).toBe('unauthorized');
  });
});
