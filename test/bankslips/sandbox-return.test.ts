import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/domain/calendar.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { at, ddmmyyyy } from './cnab-files.js';
import { advanceTo, issued, pay, slipBody, today } from './support.js';

const returns = async (t: TestApp, date: string) => {
  const res = await t.inject({ method: 'GET', url: `/sandbox/bankslips/returns?date=${date}`, headers: t.adminHeaders });
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
};

/** The [segment movement, nosso número] of a file's T records. */
const tRecords = (file: string) => file.split('\r\n').filter((l) => at(l, 14, 14) === 'T').map((l) => [at(l, 16, 17), at(l, 38, 57).trim()]);

describe(`the sandbox's return file of a past day (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant({ api: 'integration' });
  });
  afterAll(() => t.close());

  it('is the same file each time it is fetched: stamped when the day closed; a payment recorded later goes in the later day', async () => {
    const day = await today(t);
    const paidThatDay = await issued(t, m, slipBody({ value: 10, dueDate: addDays(day, 30) }));
    const paidLater = await issued(t, m, slipBody({ value: 20, dueDate: addDays(day, 30) }));
    expect((await pay(t, paidThatDay.id)).statusCode).toBe(200);
    const registeredAt = Date.parse((await t.ctx.database.db.selectFrom('bankslips').select('registered_at').where('id', '=', paidLater.id).executeTakeFirstOrThrow()).registered_at!);

    await advanceTo(t, `${addDays(day, 1)}T10:00:00.000Z`);
    const first = await returns(t, day);
    // The payment of the day before, recorded today: in today's file with its payment date.
    const paidAt = new Date(Math.max(registeredAt + 1000, Date.parse(`${day}T23:00:00.000Z`))).toISOString();
    expect((await pay(t, paidLater.id, { paidAt })).statusCode).toBe(200);
    await advanceTo(t, `${addDays(day, 2)}T15:30:00.000Z`);
    const second = await returns(t, day);

    expect(second).toBe(first);
    expect(tRecords(first)).toEqual([
      ['02', paidThatDay.ourNumber],
      ['02', paidLater.ourNumber],
      ['06', paidThatDay.ourNumber],
    ]);
    const header = first.split('\r\n')[0];
    expect(at(header, 144, 157)).toBe(`${ddmmyyyy(addDays(day, 1))}000000`); // written when the day closed
    const next = await returns(t, addDays(day, 1));
    expect(tRecords(next)).toEqual([['06', paidLater.ourNumber]]);
    const u = next.split('\r\n').find((l) => at(l, 14, 17) === 'U 06')!;
    expect(at(u, 138, 145)).toBe(ddmmyyyy(paidAt.slice(0, 10)));
  });

  it("confirms the merchant's write-off requests of the day (09, reason 10); imported back, it changes nothing", async () => {
    const day = await today(t);
    const slip = await issued(t, m, slipBody({ value: 30, dueDate: addDays(day, 30) }));
    const cancel = await t.inject({ method: 'POST', url: `/integration/api/billissuer/${slip.id}/cancel?accountNumber=${m.accountNumber}`, headers: m.headers, payload: { reason: 'pedido desfeito' } });
    expect(cancel.statusCode, cancel.body).toBe(200);
    const file = await returns(t, day);
    const t09 = file.split('\r\n').find((l) => at(l, 14, 14) === 'T' && at(l, 16, 17) === '09' && at(l, 38, 57).trim() === slip.ourNumber);
    expect(t09, file).toBeDefined();
    expect(at(t09!, 214, 215)).toBe('10');
    const imported = await t.inject({ method: 'POST', url: '/admin/bankslips/returns', headers: { ...t.adminHeaders, 'content-type': 'text/plain' }, payload: file });
    expect(imported.json()).toMatchObject({ rejected: 0, errors: [] });
    const info = await t.inject({ method: 'GET', url: `/integration/api/billissuer/information?accountNumber=${m.accountNumber}&id_bill=${slip.id}`, headers: m.headers });
    expect(info.json()).toMatchObject({ CancellationReason: 'pedido desfeito' });
  });
});
