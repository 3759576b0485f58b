import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/domain/calendar.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { at, returnFile } from './cnab-files.js';
import { advanceTo, BASE, events, information, issue, issued, pay, slipBody, today } from './support.js';

const cancel = (t: TestApp, m: TestMerchant, id: string, payload?: object, headers: Record<string, string> = {}, accountNumber: unknown = m.accountNumber) =>
  t.inject({ method: 'POST', url: `${BASE}/${id}/cancel?accountNumber=${accountNumber}`, headers: { ...m.headers, ...headers }, ...(payload === undefined ? {} : { payload }) });

const row = (t: TestApp, id: string) => t.ctx.database.db.selectFrom('bankslips').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** The notifications of a slip written for the catalogue subscription, oldest first: [type, payload]. */
async function notifications(t: TestApp, id: string): Promise<[string, any][]> {
  const rows = await t.ctx.database.db.selectFrom('webhook_notifications').select(['payload', 'type']).orderBy('id').execute();
  return rows.map((r): [string, any] => [r.type, JSON.parse(r.payload)]).filter(([, p]) => p.nsu === id || p.data?.bankSlipId === id);
}

describe(`bank slip cancel (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let other: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant({ api: 'integration' });
    other = await t.merchant({ api: 'integration' });
    const sub = await t.inject({ method: 'POST', url: `/integration/api/webhooks/subscriptions?accountNumber=${m.accountNumber}`, headers: m.headers, payload: { url: 'http://127.0.0.1:9/hook', types: ['*'] } });
    expect(sub.statusCode, sub.body).toBe(200);
  });
  afterAll(() => t.close());

  it('an issued slip: cancelled with the reason, no longer payable nor overdue, its event; statusBill kept; a second cancel is 409', async () => {
    const slip = await issued(t, m, slipBody({ dueDate: addDays(await today(t), 5) }));
    expect(slip.CancelDate).toBeNull();
    const res = await cancel(t, m, slip.id.toUpperCase(), { reason: 'Order cancelled by the customer' });
    expect(res.statusCode, res.body).toBe(200);
    const now = res.json().CancelDate;
    expect(Date.parse(now)).toBeLessThanOrEqual(t.ctx.clock.now().getTime());
    expect(res.json()).toMatchObject({ id: slip.id, statusBill: 2, CancellationReason: 'Order cancelled by the customer' });
    expect(await information(t, m, slip.id)).toEqual(res.json());
    expect(await row(t, slip.id)).toMatchObject({ canceled_by: 'merchant', canceled_at: now });

    const paid = await pay(t, slip.id);
    expect(paid.statusCode).toBe(409);
    const pdf = await t.inject({ method: 'GET', url: `${BASE}/${slip.id}/pdf?accountNumber=${m.accountNumber}`, headers: m.headers });
    expect(pdf.statusCode).toBe(409);
    expect(pdf.json()[0].description).toContain('cancelled');
    expect(paid.json()[0].description).toContain('cancelled');
    const again = await cancel(t, m, slip.id);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual([{ tag: 'invalid_state', description: expect.stringContaining('already cancelled') }]);

    const sent = await notifications(t, slip.id);
    expect(sent.filter(([type]) => type === 'bank_slip.canceled').map(([, p]) => p.data)).toEqual([
      { bankSlipId: slip.id, reason: 'Order cancelled by the customer', statusBill: 2, canceledBy: 'merchant' },
    ]);
    // Its overdue check went with it: past the due date it is still 2, not 9.
    await advanceTo(t, `${addDays(slip.dueDate, 1)}T06:00:00.000Z`);
    expect((await row(t, slip.id)).status_bill).toBe(2);
    expect((await events(t, slip.id)).map((e) => e.new_status_bill)).toEqual([1, 2]);
  });

  it('without a body, an overdue slip: cancelled with the default reason, still 9', async () => {
    const slip = await issued(t, m, slipBody({ dueDate: await today(t) }));
    await advanceTo(t, `${addDays(slip.dueDate, 1)}T06:00:00.000Z`);
    expect((await information(t, m, slip.id)).statusBill).toBe(9);
    const res = await cancel(t, m, slip.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ statusBill: 9, CancellationReason: 'Cancelled by the merchant' });
  });

  it('a slip still processing ends in 99 and is never registered', async () => {
    const created = (await issue(t, m, slipBody())).json();
    expect(created.statusBill).toBe(1);
    const res = await cancel(t, m, created.id, { reason: 'typo in the amount' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 99, statusBill: 99, statusIntegration: 99, message: 'Cancelled before registration: typo in the amount', CancellationReason: 'typo in the amount' });
    await advanceTo(t, addDays(await today(t), 0) + 'T23:00:00.000Z');
    const after = await information(t, m, created.id);
    expect(after).toMatchObject({ statusBill: 99, barCode: null });
    const changes = (await notifications(t, created.id)).filter(([type]) => type === 'BankSlipStatus').map(([, p]) => [p.oldValue, p.newValue]);
    expect(changes).toEqual([['', '1'], ['1', '99']]);
  });

  it('a paid slip is 409; unknown, malformed or another merchant\'s id is 404 or 400; an unknown body field or a long reason is 400', async () => {
    const slip = await issued(t, m, slipBody({ dueDate: addDays(await today(t), 5) }));
    expect((await pay(t, slip.id)).statusCode).toBe(200);
    const paid = await cancel(t, m, slip.id, {});
    expect(paid.statusCode).toBe(409);
    expect(paid.json()).toEqual([{ tag: 'invalid_state', description: 'The bank slip is paid and cannot be cancelled.' }]);

    const open = await issued(t, m, slipBody({ dueDate: addDays(await today(t), 5) }));
    const theirs = await cancel(t, other, open.id);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json()).toEqual([{ tag: 'not_found', description: 'Bank slip not found.' }]);
    expect((await cancel(t, m, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await cancel(t, m, 'nope')).statusCode).toBe(400);
    expect((await cancel(t, m, open.id, undefined, {}, other.accountNumber)).statusCode).toBe(403);
    const unknown = await cancel(t, m, open.id, { reason: 'x', refund: true });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual([{ tag: 'refund', description: expect.stringContaining('not a field') }]);
    expect((await cancel(t, m, open.id, { reason: 'x'.repeat(201) })).json()[0].tag).toBe('reason');
    expect((await information(t, m, open.id)).CancelDate).toBeNull();
  });

  it('Idempotency-Key: the same cancel again is the first answer replayed, not a 409', async () => {
    const slip = await issued(t, m, slipBody({ dueDate: addDays(await today(t), 5) }));
    const key = { 'idempotency-key': `cancel-${slip.id}` };
    const first = await cancel(t, m, slip.id, { reason: 'dup' }, key);
    const again = await cancel(t, m, slip.id, { reason: 'dup' }, key);
    expect(first.statusCode).toBe(200);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
  });

  it('a write-off by the bank (return movement 09) shows in /information as the cancellation; the merchant cannot cancel it again', async () => {
    const day = await today(t);
    const slip = await issued(t, m, slipBody({ dueDate: addDays(day, 10) }));
    const record = { movement: '09', ourNumber: slip.ourNumber, dueDate: slip.dueDate, valueCents: 15075n, reasons: '13', paymentDate: day };
    const imported = await t.inject({ method: 'POST', url: '/admin/bankslips/returns', headers: { ...t.adminHeaders, 'content-type': 'text/plain' }, payload: returnFile([record]) });
    expect(imported.json()).toMatchObject({ applied: 1 });
    expect(await information(t, m, slip.id)).toMatchObject({ statusBill: 2, CancelDate: `${day}T00:00:00.000Z`, CancellationReason: 'Written off by the bank: 13 term expired (bank)' });
    const again = await cancel(t, m, slip.id);
    expect(again.statusCode).toBe(409);
    expect(again.json()[0].description).toContain('written off by the bank');
  });

  it("the day's remittance asks the bank to write it off (movement 02); one cancelled before registration is not sent", async () => {
    const day = await today(t);
    const slip = await issued(t, m, slipBody({ value: 42, dueDate: addDays(day, 10) }));
    const before = (await issue(t, m, slipBody())).json();
    expect((await cancel(t, m, before.id)).statusCode).toBe(200);
    const plain = await issued(t, m, slipBody({ value: 43, dueDate: addDays(day, 10) }));
    expect((await cancel(t, m, slip.id, { reason: 'returned goods' })).statusCode).toBe(200);
    const res = await t.inject({ method: 'GET', url: `/admin/bankslips/remittance?date=${day}`, headers: t.adminHeaders });
    expect(res.statusCode, res.body).toBe(200);
    const lines = res.body.slice(0, -2).split('\r\n');
    const movements = (ourNumber: string) => lines.filter((l) => at(l, 14, 14) === 'P' && at(l, 38, 57).trim() === ourNumber).map((l) => at(l, 16, 17));
    expect(movements(slip.ourNumber)).toEqual(['01', '02']);
    expect(movements(plain.ourNumber)).toEqual(['01']);
    const baixa = lines.find((l) => at(l, 14, 17) === 'P 02' && at(l, 38, 57).trim() === slip.ourNumber)!;
    expect(at(baixa, 86, 100)).toBe('000000000004200');
    // The slip cancelled before registration has no our number: no P record of any movement is blank.
    expect(lines.filter((l) => at(l, 14, 14) === 'P' && at(l, 38, 57).trim() === '')).toEqual([]);
    // The next day's remittance does not send it again.
    const next = await t.inject({ method: 'GET', url: `/admin/bankslips/remittance?date=${addDays(day, 1)}`, headers: t.adminHeaders });
    expect(next.body.split('\r\n').some((l) => at(l, 38, 57).trim() === slip.ourNumber)).toBe(false);
  });
});
