import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, businessDayAfter, dayOfWeek, isBusinessDay, isHoliday, nextBusinessDay } from '../../src/domain/calendar.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { advanceTo, events, inDays, information, issue, issued, pay, slipBody, today } from './support.js';

const transitions = async (t: TestApp, id: string) => (await events(t, id)).map((e) => [e.old_status_bill, e.new_status_bill]);

/** The first date on or after `from` for which `ok` holds. */
function firstDate(from: string, ok: (date: string) => boolean): string {
  let d = from;
  while (!ok(d)) d = addDays(d, 1);
  return d;
}

describe(`bank slip lifecycle (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant({ api: 'integration' });
  });
  afterAll(() => t.close());

  it('becomes overdue (9) at 00:00 after its due date, not before; the detail still says issued (2)', async () => {
    const due = await inDays(t, 3);
    const slip = await issued(t, m, slipBody({ dueDate: due }));
    await advanceTo(t, `${due}T23:59:00.000Z`); // the wall clock ticks on: leave it room before 00:00
    expect((await information(t, m, slip.id)).statusBill).toBe(2);
    await advanceTo(t, `${addDays(due, 1)}T00:00:00.000Z`);
    expect(await information(t, m, slip.id)).toMatchObject({ statusBill: 9, status: 2, statusIntegration: 2 });
    const all = await events(t, slip.id);
    expect(all.map((e) => [e.old_status_bill, e.new_status_bill])).toEqual([[null, 1], [1, 2], [2, 9]]);
    expect(all[2]).toMatchObject({ occurred_at: `${addDays(due, 1)}T00:00:00.000Z`, account_number: m.accountNumber });
  });

  it('paid on time: the value, credited on the next business day; it never becomes overdue', async () => {
    const due = await inDays(t, 5);
    const slip = await issued(t, m, slipBody({ value: 321.09, dueDate: due }));
    const res = await t.inject({ method: 'POST', url: `/sandbox/bankslips/${slip.id}/pay`, headers: t.adminHeaders }); // no body: paid now
    expect(res.statusCode, res.body).toBe(200);
    const day = await today(t);
    expect(res.json()).toMatchObject({
      statusBill: 3,
      status: 3,
      effectivePaymentDate: day,
      effectiveCreditDate: businessDayAfter(day),
      effectivePaymentValue: 321.09,
      overduePenaltyReceived: 0,
      overdueInterestReceived: 0,
    });
    await advanceTo(t, `${addDays(due, 2)}T00:00:00.000Z`);
    expect((await information(t, m, slip.id)).statusBill).toBe(3);
    expect(await transitions(t, slip.id)).toEqual([[null, 1], [1, 2], [2, 3]]);
    const twice = await pay(t, slip.id);
    expect(twice.statusCode).toBe(409);
    expect(twice.json()[0].tag).toBe('invalid_state');
  });

  it('paid late: 2% penalty and 1% a month pro rata per day; the amount paid must be the amount due', async () => {
    const due = firstDate(await inDays(t, 2), isBusinessDay);
    const paidDay = addDays(due, 10);
    const b = slipBody({ value: 1000, dueDate: due });
    const slip = await issued(t, m, { ...b, overdue: { allow: true, dateLimit: addDays(due, 30), penaltyPercent: 2, interestPercentPerMonth: 1 } });
    await advanceTo(t, `${paidDay}T13:00:00.000Z`);
    expect((await information(t, m, slip.id)).statusBill).toBe(9);

    const short = await pay(t, slip.id, { paidAt: `${paidDay}T12:00:00.000Z`, value: 1000 });
    expect(short.statusCode).toBe(400);
    expect(short.json()[0]).toEqual({ tag: 'value', description: expect.stringContaining('1023.33') });

    // 1000.00 + 20.00 penalty + 1000 x 1% / 30 x 10 days = 3.33 interest.
    const res = await pay(t, slip.id, { paidAt: `${paidDay}T12:00:00.000Z`, value: 1023.33 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      statusBill: 3,
      effectivePaymentDate: paidDay,
      effectiveCreditDate: businessDayAfter(paidDay),
      effectivePaymentValue: 1023.33,
      overduePenaltyReceived: 20,
      overdueInterestReceived: 3.33,
      value: 1000,
    });
    expect(await transitions(t, slip.id)).toEqual([[null, 1], [1, 2], [2, 9], [9, 3]]);
  });

  it('refuses (409) a late payment the slip does not allow, and one after its date limit; the limit day itself is accepted', async () => {
    const due = firstDate(await inDays(t, 1), isBusinessDay);
    const limit = addDays(due, 3);
    const notAllowed = await issued(t, m, slipBody({ dueDate: due }));
    const b = slipBody({ value: 100, dueDate: due });
    const withLimit = { ...b, overdue: { allow: true, dateLimit: limit, penaltyPercent: 2, interestPercentPerMonth: 1 } };
    const onLimit = await issued(t, m, withLimit);
    const afterLimit = await issued(t, m, withLimit);

    await advanceTo(t, `${addDays(due, 7)}T10:00:00.000Z`);
    const refused = await pay(t, notAllowed.id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()[0]).toEqual({ tag: 'invalid_state', description: expect.stringContaining('does not accept payment after its due date') });
    const late = await pay(t, afterLimit.id);
    expect(late.statusCode).toBe(409);
    expect(late.json()[0].description).toContain('last day');
    expect((await pay(t, onLimit.id, { paidAt: `${limit}T23:59:59.000Z` })).statusCode).toBe(200);
    expect((await information(t, m, notAllowed.id)).statusBill).toBe(9);
    expect((await information(t, m, afterLimit.id)).statusBill).toBe(9);
  });

  it('a slip due on a Saturday is paid at face value on Monday, although it became overdue on Sunday', async () => {
    const saturday = firstDate(await inDays(t, 1), (d) => dayOfWeek(d) === 6 && isBusinessDay(addDays(d, 2)));
    const slip = await issued(t, m, slipBody({ value: 50, dueDate: saturday }));
    const monday = addDays(saturday, 2);
    await advanceTo(t, `${monday}T10:00:00.000Z`);
    expect((await information(t, m, slip.id)).statusBill).toBe(9);
    const res = await pay(t, slip.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ effectivePaymentValue: 50, overduePenaltyReceived: 0, effectiveCreditDate: businessDayAfter(monday) });
  });

  it('credits on the next business day: over a weekend, and over a bank holiday', async () => {
    const friday = firstDate(await inDays(t, 0), (d) => dayOfWeek(d) === 5 && isBusinessDay(d));
    const slip = await issued(t, m, slipBody());
    await advanceTo(t, `${friday}T15:00:00.000Z`);
    const res = await pay(t, slip.id, { paidAt: `${friday}T14:00:00.000Z` });
    expect(res.json().effectivePaymentDate).toBe(friday);
    expect(res.json().effectiveCreditDate).toBe(nextBusinessDay(addDays(friday, 3))); // Monday, or the day after if a holiday

    const eve = firstDate(await inDays(t, 1), (d) => isBusinessDay(d) && isHoliday(addDays(d, 1)));
    const other = await issued(t, m, slipBody());
    await advanceTo(t, `${eve}T12:00:00.000Z`);
    const paid = (await pay(t, other.id)).json();
    expect(paid.effectivePaymentDate).toBe(eve);
    expect(paid.effectiveCreditDate).toBe(nextBusinessDay(addDays(eve, 2)));
    expect(paid.effectiveCreditDate > addDays(eve, 1)).toBe(true);
  });

  it('checks paidAt, the slip id, the admin key and the registration', async () => {
    const slip = await issued(t, m, slipBody());
    const now = t.ctx.clock.now();
    const future = await pay(t, slip.id, { paidAt: new Date(now.getTime() + 60_000).toISOString() });
    expect(future.statusCode).toBe(400);
    expect(future.json()[0].tag).toBe('paidAt');
    const before = await pay(t, slip.id, { paidAt: new Date(now.getTime() - 86_400_000).toISOString() });
    expect(before.statusCode).toBe(400);
    expect(before.json()[0].tag).toBe('paidAt');
    expect((await pay(t, slip.id, { paidAt: 'yesterday' })).json()[0].tag).toBe('paidAt');
    expect((await pay(t, slip.id, { value: 0 })).json()[0].tag).toBe('value');

    const unknown = await pay(t, '00000000-0000-4000-8000-000000000000');
    expect(unknown.statusCode).toBe(404);
    const malformed = await pay(t, 'not-a-slip');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()[0].tag).toBe('path.id');
    const merchant = await t.inject({ method: 'POST', url: `/sandbox/bankslips/${slip.id}/pay`, headers: m.headers, payload: {} });
    expect(merchant.statusCode).toBe(401);

    const fresh = await issue(t, m, slipBody()); // not registered yet: no clock advance
    const early = await pay(t, fresh.json().id);
    expect(early.statusCode).toBe(409);
    expect(early.json()[0].description).toContain('not registered yet');
  });
});

describe(`bank slip sandbox payment in production (${testDialect})`, () => {
  it('is 404: production has no /sandbox routes', async () => {
    const prod = await testApp({ env: { GATEWAY_MODE: 'production', DATA_KEY: Buffer.alloc(32, 9).toString('base64') } });
    try {
      const res = await prod.inject({ method: 'POST', url: '/sandbox/bankslips/00000000-0000-4000-8000-000000000000/pay', headers: prod.adminHeaders, payload: {} });
      expect(res.statusCode).toBe(404);
    } finally {
      await prod.close();
    }
  });
});
