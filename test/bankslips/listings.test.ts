import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, businessDayAfter, isBusinessDay } from '../../src/domain/calendar.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { toCreditRecord, toListRecord } from '../../src/modules/bankslips/record-fields.js';
import { advanceTo, issued, list, pay, slipBody, today } from './support.js';

const LIST_KEYS = [
  'id', 'value', 'issueDate', 'dueDate', 'payerDocument', 'payerName', 'payerStreetAndNumber', 'payerZipCode', 'payerCity',
  'payerCityState', 'payerNeighborhood', 'payerPhoneNumber', 'effectivePaymentDate', 'effectiveCreditDate', 'effectivePaymentValue',
  'barCode', 'digitableLine', 'pixEmv', 'statusBill', 'statusIntegration',
];
const CREDIT_KEYS = [
  'Id', 'Value', 'IssueDate', 'DueDate', 'PayerDocument', 'PayerName', 'PayerStreetAndNumber', 'PayerZipCode', 'PayerCity',
  'PayerCityState', 'PayerNeighborhood', 'EffectivePaymentDate', 'EffectiveCreditDate', 'EffectivePaymentValue', 'BarCode',
  'DigitableLine', 'PixEmv', 'StatusBill', 'OurNumber', 'OverduePaymentAllow', 'OverduePaymentDateLimit', 'OverduePaymentPenalty',
  'OverduePenaltyReceived', 'OverduePaymentInterest', 'OverdueInterestReceived', 'CancelDate', 'CancellationReason', 'ReferenceCode',
];

describe(`bank slip listings (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let other: TestMerchant;
  let t0: string;
  /** Slips due on t0 + 10, 11, 12, 13 (values 10, 11, 12, 13); A, B, C get paid, D does not. */
  const slips: Record<'A' | 'B' | 'C' | 'D' | 'late', { id: string; paidOn?: string }> = {} as never;
  let lateDue: string;
  let lateLimit: string;

  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant({ api: 'integration' });
    other = await t.merchant({ api: 'integration' });
    t0 = await today(t);
    for (const [name, days] of [['A', 10], ['B', 11], ['C', 12], ['D', 13]] as const) {
      slips[name] = { id: (await issued(t, m, slipBody({ value: days, dueDate: addDays(t0, days), referenceCode: name }))).id };
      await issued(t, other, slipBody({ value: days, dueDate: addDays(t0, days) })); // never in m's answers
    }
    // Quotes, a backslash, accents, no phone: the database must escape what JSON.stringify would.
    await issued(t, m, slipBody({ value: 9, dueDate: addDays(t0, 9) }, { name: 'Zé "Aspas" \\ Ção', phoneNumber: undefined }));
    lateDue = addDays(t0, 1);
    while (!isBusinessDay(lateDue)) lateDue = addDays(lateDue, 1);
    lateLimit = addDays(lateDue, 30);
    const b = slipBody({ value: 1000, dueDate: lateDue, referenceCode: 'late' });
    slips.late = { id: (await issued(t, m, { ...b, overdue: { allow: true, dateLimit: lateLimit, penaltyPercent: 2, interestPercentPerMonth: 1 } })).id };

    // Payments: A on t0+1, B on t0+3, the late slip 4 days after its due date, C at that same moment.
    const lateDay = addDays(lateDue, 4);
    await advanceTo(t, `${lateDay}T12:00:00.000Z`);
    slips.A.paidOn = addDays(t0, 1);
    slips.B.paidOn = addDays(t0, 3);
    slips.late.paidOn = lateDay;
    slips.C.paidOn = lateDay;
    for (const name of ['A', 'B', 'late'] as const) {
      const res = await pay(t, slips[name].id, { paidAt: `${slips[name].paidOn}T10:00:00.000Z` });
      expect(res.statusCode, res.body).toBe(200);
    }
    expect((await pay(t, slips.C.id)).statusCode).toBe(200);
  });
  afterAll(() => t.close());

  const ids = (res: { json(): any }) => res.json().map((r: { id?: string; Id?: string }) => r.id ?? r.Id);
  const paidBetween = (start: string, end: string, on: (s: { paidOn?: string }) => string | undefined) =>
    (['A', 'B', 'C', 'D', 'late'] as const).filter((n) => { const d = on(slips[n]); return d !== undefined && d >= start && d <= end; });

  describe('by due date', () => {
    it('answers the slips due within the range, both bounds included, in due date order, with the seed fields', async () => {
      const res = await list(t, m, 'due-date', { startDate: addDays(t0, 11), endDate: addDays(t0, 12) });
      expect(res.statusCode).toBe(200);
      expect(ids(res)).toEqual([slips.B.id, slips.C.id]);
      expect(Object.keys(res.json()[0]).sort()).toEqual([...LIST_KEYS].sort());
      expect(res.json()[0]).toMatchObject({ value: 11, dueDate: addDays(t0, 11), statusBill: 3, statusIntegration: 2, effectivePaymentDate: slips.B.paidOn });
      expect(ids(await list(t, m, 'due-date', { startDate: addDays(t0, 11), endDate: addDays(t0, 11) }))).toEqual([slips.B.id]);
      expect(ids(await list(t, m, 'due-date', { startDate: addDays(t0, 10), endDate: addDays(t0, 13) }))).toEqual([slips.A.id, slips.B.id, slips.C.id, slips.D.id]);
      expect(ids(await list(t, m, 'due-date', { startDate: addDays(t0, 14), endDate: addDays(t0, 20) }))).toEqual([]);
    });
  });

  describe('by payment date', () => {
    it('answers paid slips (statusBill 3) whose payment date is in the range, bounds included', async () => {
      expect(ids(await list(t, m, 'payment-date', { startDate: addDays(t0, 1), endDate: addDays(t0, 3) }))).toEqual([slips.A.id, slips.B.id]);
      expect(ids(await list(t, m, 'payment-date', { startDate: addDays(t0, 2), endDate: addDays(t0, 2) }))).toEqual([]);
      expect(ids(await list(t, m, 'payment-date', { startDate: addDays(t0, 3), endDate: addDays(t0, 3) }))).toEqual([slips.B.id]);
      const all = await list(t, m, 'payment-date', { startDate: t0, endDate: addDays(t0, 60) });
      expect(all.json().every((r: { statusBill: number }) => r.statusBill === 3)).toBe(true);
      expect(ids(all)).not.toContain(slips.D.id);
      expect(ids(all).sort()).toEqual([slips.A.id, slips.B.id, slips.C.id, slips.late.id].sort());
    });
  });

  describe('by credit date', () => {
    const creditOf = (s: { paidOn?: string }) => (s.paidOn ? businessDayAfter(s.paidOn) : undefined);

    it('answers the PascalCase record with the overdue fields, bounds included', async () => {
      const start = creditOf(slips.A)!;
      const end = creditOf(slips.B)!;
      const res = await list(t, m, 'credit-date', { startDate: start, endDate: end });
      expect(res.statusCode).toBe(200);
      expect(ids(res).sort()).toEqual(paidBetween(start, end, creditOf).map((n) => slips[n].id).sort());
      expect(Object.keys(res.json()[0]).sort()).toEqual([...CREDIT_KEYS].sort());

      const late = (await list(t, m, 'credit-date', { startDate: creditOf(slips.late)!, endDate: creditOf(slips.late)! })).json();
      expect(late.find((r: { Id: string }) => r.Id === slips.late.id)).toMatchObject({
        Value: 1000,
        DueDate: lateDue,
        StatusBill: 3,
        EffectivePaymentDate: slips.late.paidOn,
        EffectiveCreditDate: creditOf(slips.late),
        // 4 days late: 20.00 penalty, 1000 x 1% / 30 x 4 = 1.33 interest.
        EffectivePaymentValue: 1021.33,
        OverduePaymentAllow: true,
        OverduePaymentDateLimit: `${lateLimit}T00:00:00.000Z`,
        OverduePaymentPenalty: 2,
        OverduePenaltyReceived: 20,
        OverduePaymentInterest: 1,
        OverdueInterestReceived: 1.33,
        CancelDate: null,
        CancellationReason: null,
        ReferenceCode: 'late',
        PayerCityState: 'SP',
      });
      expect(late[0].OurNumber).toMatch(/^\d{15}$/);
    });

    it('takes dates or ISO datetimes; a datetime counts as the calendar date it names', async () => {
      const day = creditOf(slips.A)!;
      const expected = paidBetween(day, day, creditOf).map((n) => slips[n].id).sort();
      for (const [startDate, endDate] of [
        [day, day],
        [`${day}T00:00:00`, `${day}T23:59:59Z`],
        [`${day}T10:00:00.000-03:00`, `${day}T22:30:00-03:00`],
        [`${day}T00:00Z`, `${day}T00:00:00.000Z`],
      ]) {
        const res = await list(t, m, 'credit-date', { startDate, endDate });
        expect(res.statusCode, `${startDate} ${endDate}: ${res.body}`).toBe(200);
        expect(ids(res).sort()).toEqual(expected);
      }
    });

    it('filters by statusIntegration (1, 2, 9, 99) and refuses other values', async () => {
      const range = { startDate: t0, endDate: addDays(t0, 60) };
      expect(ids(await list(t, m, 'credit-date', { ...range, statusIntegration: 2 })).sort()).toEqual([slips.A.id, slips.B.id, slips.C.id, slips.late.id].sort());
      for (const none of [1, 9, 99]) expect(ids(await list(t, m, 'credit-date', { ...range, statusIntegration: none }))).toEqual([]);
      for (const bad of [3, 'abc']) {
        const res = await list(t, m, 'credit-date', { ...range, statusIntegration: bad });
        expect(res.statusCode).toBe(400);
        expect(res.json()[0].tag).toBe('query.statusIntegration');
      }
    });

    it('refuses malformed bounds', async () => {
      for (const [query, tag] of [
        [{ startDate: 'yesterday', endDate: t0 }, 'query.startDate'],
        [{ startDate: t0, endDate: '2026-02-30T10:00:00Z' }, 'query.endDate'],
        [{ startDate: `${t0}T25:00:00Z`, endDate: t0 }, 'query.startDate'],
        [{ startDate: `${t0}T10:00:00+3`, endDate: t0 }, 'query.startDate'],
        [{ endDate: t0 }, 'query.startDate'],
      ] as const) {
        const res = await list(t, m, 'credit-date', query);
        expect(res.statusCode, JSON.stringify(query)).toBe(400);
        expect(res.json()[0].tag).toBe(tag);
      }
    });
  });

  it('the database writes exactly the records the JS renderer makes (records.ts)', async () => {
    const rows = await t.ctx.database.db.selectFrom('bankslips').selectAll().where('account_number', '=', m.accountNumber).execute();
    const within = (date: string | null, start: string, end: string) => date !== null && date >= start && date <= end;
    const by = (column: 'due_date' | 'payment_date' | 'credit_date') => (a: (typeof rows)[number], b: (typeof rows)[number]) =>
      a[column]! < b[column]! ? -1 : a[column]! > b[column]! ? 1 : a.seq - b.seq;
    const end = addDays(t0, 60);
    const due = await list(t, m, 'due-date', { startDate: t0, endDate: end });
    expect(due.json()).toEqual(rows.filter((r) => within(r.due_date, t0, end)).sort(by('due_date')).map(toListRecord));
    expect(due.json().some((r: { payerName: string; payerPhoneNumber: null }) => r.payerName === 'Zé "Aspas" \\ Ção' && r.payerPhoneNumber === null)).toBe(true);
    const paid = await list(t, m, 'payment-date', { startDate: t0, endDate: end });
    expect(paid.json()).toEqual(rows.filter((r) => r.status_bill === 3 && within(r.payment_date, t0, end)).sort(by('payment_date')).map(toListRecord));
    const credit = await list(t, m, 'credit-date', { startDate: t0, endDate: end });
    expect(credit.json()).toEqual(rows.filter((r) => within(r.credit_date, t0, end)).sort(by('credit_date')).map(toCreditRecord));
    expect(credit.headers['content-type']).toBe('application/json; charset=utf-8');
    // Numbers are written as JSON.stringify writes them, on either database (1000, not 1000.0).
    for (const body of [due.body, paid.body, credit.body]) expect(body).not.toMatch(/\d\.0[,} ]/);
    expect(credit.body).toMatch(/"OverduePaymentPenalty" ?: ?2,/);
  });

  for (const by of ['due-date', 'payment-date', 'credit-date'] as const) {
    it(`${by}: range rules, required parameters, ownership`, async () => {
      const range = (days: number) => ({ startDate: t0, endDate: addDays(t0, days) });
      expect((await list(t, m, by, range(90))).statusCode).toBe(200);
      const wide = await list(t, m, by, range(91));
      expect(wide.statusCode).toBe(400);
      expect(wide.json()[0].tag).toBe('query.endDate');
      const reversed = await list(t, m, by, { startDate: addDays(t0, 1), endDate: t0 });
      expect(reversed.statusCode).toBe(400);
      expect(reversed.json()[0].tag).toBe('query.endDate');
      for (const [query, tag] of [
        [{ endDate: t0 }, 'query.startDate'],
        [{ startDate: t0 }, 'query.endDate'],
        [{ startDate: '2026-1-5', endDate: t0 }, 'query.startDate'],
      ] as const) {
        const res = await list(t, m, by, query);
        expect(res.statusCode).toBe(400);
        expect(res.json().map((e: { tag: string }) => e.tag)).toContain(tag);
      }
      const foreign = await list(t, m, by, { ...range(5), accountNumber: other.accountNumber });
      expect(foreign.statusCode).toBe(403);
      expect(foreign.json()[0].tag).toBe('forbidden');
      const malformed = await list(t, m, by, { ...range(5), accountNumber: 'x1' });
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json()[0].tag).toBe('query.accountNumber');
      const anonymous = await t.inject({ method: 'GET', url: `/integration/api/billissuer/list/by/${by}?accountNumber=${m.accountNumber}&startDate=${t0}&endDate=${t0}` });
      expect(anonymous.statusCode).toBe(401);
      expect(Array.isArray(anonymous.json())).toBe(true);
    });
  }
});
