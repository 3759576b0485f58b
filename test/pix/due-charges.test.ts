import { compactVerify, createLocalJWKSet } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { brasiliaDate } from '../../src/domain/brasilia.js';
import { addDays, daysBetween, isBusinessDay } from '../../src/domain/calendar.js';
import { parseBrCode } from '../../src/domain/pix.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { advanceTo, events, information, issued, pay as payByBarcode, slipBody } from '../bankslips/support.js';

const CHARGES = '/gateway/v1/pix/charges';

/** A business day at least `n` days after `from`, whose next 10 days hold no surprise for the test's arithmetic. */
function businessDayFrom(from: string, n: number): string {
  let day = addDays(from, n);
  while (!isBusinessDay(day)) day = addDays(day, 1);
  return day;
}

/** Charges with a due date (API Pix cobv) and the bolecode, through the sandbox PSP. */
describe(`Pix charges with a due date and the bolecode (${testDialect})`, () => {
  let t: TestApp;
  let gateway: TestMerchant;
  let slips: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    gateway = await t.merchant();
    slips = await t.merchant({ api: 'integration' });
  });
  afterAll(() => t.close());

  /** The API Pix's today: Brasília. */
  const today = () => brasiliaDate(t.ctx.clock.now());
  const create = (payload: object) => t.inject({ method: 'POST', url: CHARGES, headers: gateway.headers, payload });
  const payDue = (txid: string) => t.inject({ method: 'POST', url: `/sandbox/pix/cobv/${txid}/pay`, headers: t.adminHeaders });
  /** The signed payload a payer's bank reads at the code's location, verified. */
  async function location(emv: string) {
    const code = parseBrCode(emv);
    if (!code.ok) throw new Error(code.error);
    const res = await t.inject({ method: 'GET', url: (code.value.locationUrl as string).replace(/^[^/]+/, '') });
    expect(res.statusCode, res.body).toBe(200);
    const { payload } = await compactVerify(res.body, createLocalJWKSet((await t.inject({ method: 'GET', url: '/pix/jwks' })).json()));
    return { code: code.value, payload: JSON.parse(new TextDecoder().decode(payload)) };
  }

  it('refuses inconsistent terms, each tagged with its field, and records nothing', async () => {
    const due = addDays(today(), 10);
    const payer = { documentNumber: '52998224725', name: 'Maria da Silva' };
    const cases: [object, string][] = [
      [{ amount: 1000, dueDate: due }, 'payer'],
      [{ amount: 1000, dueDate: '2026-02-30', payer }, 'dueDate'],
      [{ amount: 1000, dueDate: addDays(today(), -1), payer }, 'dueDate'],
      [{ amount: 1000, dueDate: due, payer: { ...payer, documentNumber: '52998224724' } }, 'payer.documentNumber'],
      [{ amount: 1000, dueDate: due, payer, fine: 2.345 }, 'fine'],
      [{ amount: 1000, dueDate: due, payer, interest: 1.001 }, 'interest'],
      [{ amount: 1000, dueDate: due, payer, discount: { amount: 1000, until: due } }, 'discount.amount'],
      [{ amount: 1000, dueDate: due, payer, discount: { amount: 100, until: addDays(due, 1) } }, 'discount.until'],
      [{ amount: 1000, dueDate: due, payer, expiresIn: 600 }, 'expiresIn'],
      [{ amount: 1000, fine: 2 }, 'fine'],
      [{ amount: 1000, validAfterDueDays: 3 }, 'validAfterDueDays'],
    ];
    const before = await t.ctx.database.db.selectFrom('pix_charges').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    for (const [payload, tag] of cases) {
      const res = await create(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().map((e: { tag: string }) => e.tag), JSON.stringify(payload)).toContain(tag);
    }
    const after = await t.ctx.database.db.selectFrom('pix_charges').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it("the location shows the day's amount: the discount until its date, then the face value, then fine and interest; paid that day's amount, refundable up to it", async () => {
    const due = businessDayFrom(today(), 10);
    const res = await create({ amount: 10_000, dueDate: due, validAfterDueDays: 10, payer: { documentNumber: '11222333000181', name: 'Cliente SA' }, fine: 2, interest: 1, discount: { amount: 500, until: addDays(today(), 2) } });
    expect(res.statusCode, res.body).toBe(201);
    const charge = res.json();
    expect(charge).toMatchObject({ status: 'Pending', dueDate: due, validAfterDueDays: 10, fine: 2, interest: 1, discount: { amount: 500, until: addDays(today(), 2) }, payer: { documentNumber: '11222333000181' }, paidAmount: null });

    const early = await location(charge.pixEmv);
    expect(early.code.amountCents).toBeUndefined(); // the amount changes by day: the code carries none
    expect(early.payload).toMatchObject({ txid: charge.txid, status: 'ATIVA', calendario: { dataDeVencimento: due, validadeAposVencimento: 10 }, devedor: { cnpj: '11222333000181' }, valor: { original: '100.00', desconto: '5.00', final: '95.00' } });

    await advanceTo(t, `${due}T12:00:00.000Z`);
    expect((await location(charge.pixEmv)).payload.valor).toEqual({ original: '100.00', final: '100.00' });

    const later = addDays(due, 3);
    await advanceTo(t, `${later}T12:00:00.000Z`);
    // 2% once (R$ 2.00) and 1% a month for 3 days (100.00 x 0.01 x 3 / 30 = R$ 0.10).
    expect((await location(charge.pixEmv)).payload.valor).toEqual({ original: '100.00', multa: '2.00', juros: '0.10', final: '102.10' });

    const paid = await payDue(charge.txid);
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json()).toMatchObject({ txid: charge.txid, amount: 10_210, chargeId: charge.id, bankSlipId: null, endToEndId: expect.stringMatching(/^E\d{8}\d{12}[A-Z0-9]{11}$/) });
    const after = (await t.inject({ method: 'GET', url: `${CHARGES}/${charge.id}`, headers: gateway.headers })).json();
    expect(after).toMatchObject({ status: 'Paid', amount: 10_000, paidAmount: 10_210 });
    expect((await payDue(charge.txid)).statusCode).toBe(409);
    expect((await location(charge.pixEmv)).payload.status).toBe('CONCLUIDA');

    // What was paid, fine and interest included, is what can be returned.
    const refunds = `${CHARGES}/${charge.id}/refunds`;
    expect((await t.inject({ method: 'POST', url: refunds, headers: gateway.headers, payload: { amount: 10_211 } })).statusCode).toBe(400);
    expect((await t.inject({ method: 'POST', url: refunds, headers: gateway.headers, payload: {} })).json()).toMatchObject({ amount: 10_210, status: 'Returned' });
  });

  it('past its last day (validAfterDueDays, moved off a weekend or holiday) it cannot be paid and expires', async () => {
    const due = businessDayFrom(today(), 3);
    const charge = (await create({ amount: 2_500, dueDate: due, validAfterDueDays: 0, payer: { documentNumber: '52998224725', name: 'Maria' } })).json();
    // Its last day ends at 00:00 in Brasília (03:00Z): payable at 23:59 there, not a minute later.
    expect(charge.expiresAt).toBe(`${addDays(due, 1)}T03:00:00.000Z`);
    await advanceTo(t, `${addDays(due, 1)}T02:59:00.000Z`);
    expect((await location(charge.pixEmv)).payload).toMatchObject({ status: 'ATIVA', valor: { final: '25.00' } });
    await advanceTo(t, `${addDays(due, 1)}T03:00:00.000Z`);
    expect((await payDue(charge.txid)).statusCode).toBe(409);
    expect((await t.inject({ method: 'GET', url: `${CHARGES}/${charge.id}`, headers: gateway.headers })).json().status).toBe('Expired');
    expect((await location(charge.pixEmv)).payload.status).toBe('REMOVIDA_PELO_PSP');
    expect((await payDue('a'.repeat(32))).statusCode).toBe(404);
  });

  describe('the bolecode: a slip and its Pix ask the same amount any day, and the slip is paid once', () => {
    const terms = (due: string) => slipBody({ value: 150.75, pix: true, dueDate: due, overdue: { allow: true, dateLimit: addDays(due, 20), penaltyPercent: 2, interestPercentPerMonth: 1 } });
    /** 150.75 late by `days`: 2% once (3.015 -> 3.02) and 1% a month pro rata per day, half-up. */
    const owedLate = (days: number) => 15_075 + 302 + Math.floor((15_075 * days) / 3000 + 0.5);

    it('paid by its Pix after the due date: the slip is paid (statusBill 3) with the Pix amount and date; the bank return reporting it changes nothing', async () => {
      const due = businessDayFrom(today(), 5);
      const slip = await issued(t, slips, terms(due));
      const code = parseBrCode(slip.pixEmv);
      if (!code.ok) throw new Error(code.error);
      const payDay = addDays(due, 6);
      await advanceTo(t, `${payDay}T14:00:00.000Z`);
      const days = daysBetween(due, payDay);
      const shown = (await location(slip.pixEmv)).payload;
      expect(shown).toMatchObject({ status: 'ATIVA', calendario: { dataDeVencimento: due, validadeAposVencimento: 20 }, valor: { original: '150.75', multa: '3.02', final: (owedLate(days) / 100).toFixed(2) } });

      const paid = await payDue(code.value.txid);
      expect(paid.statusCode, paid.body).toBe(200);
      expect(paid.json()).toMatchObject({ amount: owedLate(days), bankSlipId: slip.id, chargeId: null });
      expect(await information(t, slips, slip.id)).toMatchObject({ statusBill: 3, effectivePaymentDate: payDay, effectivePaymentValue: owedLate(days) / 100 });
      expect((await payDue(code.value.txid)).statusCode).toBe(409);
      expect((await payByBarcode(t, slip.id)).statusCode).toBe(409);

      const file = await t.inject({ method: 'GET', url: `/sandbox/bankslips/returns?date=${payDay}`, headers: t.adminHeaders });
      expect(file.statusCode).toBe(200);
      const imported = await t.inject({ method: 'POST', url: '/admin/bankslips/returns', headers: { ...t.adminHeaders, 'content-type': 'text/plain' }, payload: file.body });
      expect(imported.json()).toMatchObject({ applied: 0, rejected: 0 });
      expect((await events(t, slip.id)).filter((e) => e.new_status_bill === 3)).toHaveLength(1);
      expect((await location(slip.pixEmv)).payload.status).toBe('CONCLUIDA');
    });

    it('paid by its Pix at 23:59 in Brasília on the due date (02:59Z the next day) it is on time; at 00:00 there (03:00Z) it is a day late', async () => {
      const due = businessDayFrom(today(), 5);
      const onTime = await issued(t, slips, terms(due));
      const late = await issued(t, slips, terms(due));
      const txidOf = (emv: string) => {
        const code = parseBrCode(emv);
        if (!code.ok) throw new Error(code.error);
        return code.value.txid as string;
      };
      await advanceTo(t, `${addDays(due, 1)}T02:59:00.000Z`);
      expect((await location(onTime.pixEmv)).payload.valor).toEqual({ original: '150.75', final: '150.75' });
      const paid = await payDue(txidOf(onTime.pixEmv));
      expect(paid.statusCode, paid.body).toBe(200);
      expect(paid.json()).toMatchObject({ amount: 15_075, bankSlipId: onTime.id });
      expect(await information(t, slips, onTime.id)).toMatchObject({ statusBill: 3, effectivePaymentDate: due, effectivePaymentValue: 150.75 });

      await advanceTo(t, `${addDays(due, 1)}T03:00:00.000Z`);
      const paidLate = await payDue(txidOf(late.pixEmv));
      expect(paidLate.statusCode, paidLate.body).toBe(200);
      expect(paidLate.json()).toMatchObject({ amount: owedLate(1), bankSlipId: late.id });
      expect(await information(t, slips, late.id)).toMatchObject({ statusBill: 3, effectivePaymentDate: addDays(due, 1), effectivePaymentValue: owedLate(1) / 100 });
    });

    it('paid through the bank first: the PSP reporting the same Pix later is a duplicate; another Pix for it is kept unmatched', async () => {
      const due = businessDayFrom(today(), 5);
      const slip = await issued(t, slips, terms(due));
      const code = parseBrCode(slip.pixEmv);
      if (!code.ok) throw new Error(code.error);
      await advanceTo(t, `${due}T10:00:00.000Z`);
      expect((await payByBarcode(t, slip.id)).statusCode).toBe(200);
      expect((await payDue(code.value.txid)).statusCode).toBe(409); // its code closed with the slip
      expect((await location(slip.pixEmv)).payload.status).toBe('REMOVIDA_PELO_PSP');
      const paidAt = t.ctx.clock.now().toISOString();
      const report = { endToEndId: `E12345678${due.replace(/-/g, '')}1000ABCDEFGHIJK`, txid: code.value.txid, amountCents: 15_075n, paidAt };
      expect(await t.ctx.pix.receive([report], 'webhook')).toEqual({ applied: 0, duplicates: 1, unmatched: 0 });
      expect(await t.ctx.pix.receive([{ ...report, endToEndId: report.endToEndId.replace('ABC', 'XYZ'), amountCents: 15_076n }], 'webhook')).toEqual({ applied: 0, duplicates: 0, unmatched: 1 });
      expect((await events(t, slip.id)).filter((e) => e.new_status_bill === 3)).toHaveLength(1);
      expect(await information(t, slips, slip.id)).toMatchObject({ statusBill: 3, effectivePaymentValue: 150.75 });
    });

    it('cancelled, its Pix code is withdrawn: the location reads REMOVIDA_PELO_PSP and paying it is 409', async () => {
      const slip = await issued(t, slips, terms(businessDayFrom(today(), 5)));
      const code = parseBrCode(slip.pixEmv);
      if (!code.ok) throw new Error(code.error);
      const cancel = await t.inject({ method: 'POST', url: `/integration/api/billissuer/${slip.id}/cancel?accountNumber=${slips.accountNumber}`, headers: slips.headers, payload: {} });
      expect(cancel.statusCode, cancel.body).toBe(200);
      await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes: 0 } });
      expect((await location(slip.pixEmv)).payload.status).toBe('REMOVIDA_PELO_PSP');
      expect((await payDue(code.value.txid)).statusCode).toBe(409);
      // Withdrawn by its job (the worker or the advance runs it).
      await vi.waitFor(async () => expect((await t.ctx.database.db.selectFrom('pix_due_charges').select('status').where('txid', '=', code.value.txid).executeTakeFirstOrThrow()).status).toBe('Removed'), { timeout: 10_000, interval: 50 });
    });

    it('a slip with Pix refuses interest the API Pix cannot carry (more than 2 decimals)', async () => {
      const res = await t.inject({
        method: 'POST',
        url: `/integration/api/billissuer/issue?accountNumber=${slips.accountNumber}`,
        headers: slips.headers,
        payload: slipBody({ pix: true, overdue: { allow: true, dateLimit: addDays(today(), 500), interestPercentPerMonth: 1.005 } }),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()[0].tag).toBe('overdue.interestPercentPerMonth');
    });
  });
});
