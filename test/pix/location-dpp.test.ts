import { compactVerify, createLocalJWKSet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brasiliaDate } from '../../src/domain/brasilia.js';
import { addDays, daysBetween, isBusinessDay } from '../../src/domain/calendar.js';
import { lastPayableDay } from '../../src/domain/late-payment.js';
import { parseBrCode } from '../../src/domain/pix.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { advanceTo, issued, slipBody } from '../bankslips/support.js';

const CHARGES = '/gateway/v1/pix/charges';
const INVALID = 'https://pix.bcb.gov.br/api/v2/error/CobPayloadOperacaoInvalida';

/** A business day at least `n` days after `from`. */
function businessDayFrom(from: string, n: number): string {
  let day = addDays(from, n);
  while (!isBusinessDay(day)) day = addDays(day, 1);
  return day;
}

/** 100.00 late by `days`: 2% once and 1% a month pro rata per calendar day (10/3 cents a day), half-up. */
const lateValor = (days: number) => {
  const juros = Math.floor((10 * days) / 3 + 0.5);
  return { original: '100.00', multa: '2.00', juros: (juros / 100).toFixed(2), final: ((10_200 + juros) / 100).toFixed(2) };
};

/**
 * The sandbox PSP's location of a charge with a due date as a payer's bank reads it (API Pix
 * `GET /cobv/{pixUrlAccessToken}?DPP=&codMun=`): priced for the intended date, refusing what
 * the API Pix refuses with its `Problema`.
 */
describe(`the cobv location is priced for the payer's date, DPP (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let keySet: ReturnType<typeof createLocalJWKSet>;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    keySet = createLocalJWKSet((await t.inject({ method: 'GET', url: '/pix/jwks' })).json());
  });
  afterAll(() => t.close());

  const today = () => brasiliaDate(t.ctx.clock.now());
  /** The location's path and query as a payer's bank calls it. */
  const at = (emv: string, query = '') => {
    const code = parseBrCode(emv);
    if (!code.ok) throw new Error(code.error);
    return `${(code.value.locationUrl as string).replace(/^[^/]+/, '')}${query}`;
  };
  async function read(emv: string, query = '') {
    const res = await t.inject({ method: 'GET', url: at(emv, query) });
    expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
    return JSON.parse(new TextDecoder().decode((await compactVerify(res.body, keySet)).payload));
  }
  /** A refused read: the API Pix's 400 CobPayloadOperacaoInvalida naming each offending parameter. */
  async function refused(emv: string, query: string) {
    const res = await t.inject({ method: 'GET', url: at(emv, query) });
    expect(res.statusCode, `${query}: ${res.body}`).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body).toMatchObject({ type: INVALID, title: expect.any(String), status: 400, detail: expect.any(String) });
    return body.violacoes as { razao: string; propriedade: string; valor?: string }[];
  }
  async function dueCharge(terms: { dueDate: string; validAfterDueDays: number; discountUntil?: string }) {
    const res = await t.inject({
      method: 'POST',
      url: CHARGES,
      headers: m.headers,
      payload: {
        amount: 10_000,
        dueDate: terms.dueDate,
        validAfterDueDays: terms.validAfterDueDays,
        payer: { documentNumber: '52998224725', name: 'Maria da Silva' },
        fine: 2,
        interest: 1,
        ...(terms.discountUntil ? { discount: { amount: 500, until: terms.discountUntil } } : {}),
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  }

  it('prices for DPP as a payment on that day: the discount until its date, the face value to the due date, then fine and pro-rata interest up to the last payable day', async () => {
    const until = addDays(today(), 5);
    const due = businessDayFrom(today(), 20);
    const last = lastPayableDay(due, 10);
    const charge = await dueCharge({ dueDate: due, validAfterDueDays: 10, discountUntil: until });
    const discounted = { original: '100.00', desconto: '5.00', final: '95.00' };

    // No DPP: today's amount; DPP today is the same.
    const now = await read(charge.pixEmv);
    expect(now).toMatchObject({ txid: charge.txid, status: 'ATIVA', calendario: { dataDeVencimento: due, validadeAposVencimento: 10, apresentacao: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) } });
    expect(now.valor).toEqual(discounted);
    expect((await read(charge.pixEmv, `?DPP=${today()}`)).valor).toEqual(discounted);
    // Before and after the discount's date.
    expect((await read(charge.pixEmv, `?DPP=${until}`)).valor).toEqual(discounted);
    expect((await read(charge.pixEmv, `?DPP=${addDays(until, 1)}`)).valor).toEqual({ original: '100.00', final: '100.00' });
    expect((await read(charge.pixEmv, `?DPP=${due}&codMun=3550308`)).valor).toEqual({ original: '100.00', final: '100.00' });
    // After the due date: the fine once, interest per calendar day from the due date.
    expect((await read(charge.pixEmv, `?DPP=${addDays(due, 3)}`)).valor).toEqual(lateValor(3));
    expect((await read(charge.pixEmv, `?DPP=${last}`)).valor).toEqual(lateValor(daysBetween(due, last)));
    // The DPP read changes nothing: today's read is still today's amount and the charge still open.
    expect((await read(charge.pixEmv)).valor).toEqual(discounted);
    // Beyond the last payable day the charge cannot be paid: the API Pix refuses that DPP.
    expect(await refused(charge.pixEmv, `?DPP=${addDays(last, 1)}`)).toEqual([{ propriedade: 'DPP', valor: addDays(last, 1), razao: expect.stringContaining('last payable day') }]);
    expect(await refused(charge.pixEmv, `?DPP=${addDays(last, 400)}`)).toHaveLength(1);
  });

  it('refuses a past or malformed DPP, and a malformed codMun, every problem at once; an immediate charge takes neither and ignores them', async () => {
    const charge = await dueCharge({ dueDate: businessDayFrom(today(), 10), validAfterDueDays: 30 });
    const yesterday = addDays(today(), -1);
    expect(await refused(charge.pixEmv, `?DPP=${yesterday}`)).toEqual([{ propriedade: 'DPP', valor: yesterday, razao: expect.stringContaining(`before today (${today()})`) }]);
    for (const dpp of ['bad', '2027-02-30', '20270101', '2027-1-01', '', `${today()}T12:00:00Z`]) {
      expect(await refused(charge.pixEmv, `?DPP=${encodeURIComponent(dpp)}`), dpp).toEqual([{ propriedade: 'DPP', valor: dpp, razao: expect.stringContaining('YYYY-MM-DD') }]);
    }
    for (const codMun of ['123', '35503080', 'abcdefg', '9912345', '3450308']) {
      expect(await refused(charge.pixEmv, `?codMun=${codMun}`), codMun).toEqual([{ propriedade: 'codMun', valor: codMun, razao: expect.stringContaining('IBGE') }]);
    }
    expect((await refused(charge.pixEmv, '?DPP=bad&codMun=1')).map((v) => v.propriedade).sort()).toEqual(['DPP', 'codMun']);
    expect((await refused(charge.pixEmv, `?DPP=${today()}&DPP=${today()}`)).map((v) => v.propriedade)).toEqual(['DPP']);
    for (const codMun of ['5300108', '1100015', '4314902']) expect((await read(charge.pixEmv, `?codMun=${codMun}`)).status).toBe('ATIVA');

    const immediate = (await t.inject({ method: 'POST', url: CHARGES, headers: m.headers, payload: { amount: 700 } })).json();
    expect((await read(immediate.pixEmv, '?DPP=bad&codMun=x')).valor).toEqual({ original: '7.00' });
  });

  it("a bolecode's Pix code is priced for DPP as its slip would be paid that day, up to the slip's date limit", async () => {
    const slips = await t.merchant({ api: 'integration' });
    const due = businessDayFrom(today(), 5);
    const slip = await issued(t, slips, slipBody({ value: 150.75, pix: true, dueDate: due, overdue: { allow: true, dateLimit: addDays(due, 20), penaltyPercent: 2, interestPercentPerMonth: 1 } }));
    expect((await read(slip.pixEmv)).valor).toEqual({ original: '150.75', final: '150.75' });
    // 150.75 six days late: 2% once (3.015 -> 3.02) and 1% a month for 6 days (0.3015 -> 0.30).
    expect((await read(slip.pixEmv, `?DPP=${addDays(due, 6)}`)).valor).toEqual({ original: '150.75', multa: '3.02', juros: '0.30', final: '154.07' });
    // The slip's date limit is payable up to the next business day when it falls on a weekend or holiday.
    const last = lastPayableDay(due, 20);
    expect((await read(slip.pixEmv, `?DPP=${last}`)).valor.final).toBeDefined();
    expect(await refused(slip.pixEmv, `?DPP=${addDays(last, 1)}`)).toEqual([expect.objectContaining({ propriedade: 'DPP' })]);
  });

  it('"today" is the Brasília date: the discount and the due date turn at midnight in Brasília (03:00 UTC), not at midnight UTC', async () => {
    const until = addDays(today(), 3);
    const due = businessDayFrom(until, 5);
    const charge = await dueCharge({ dueDate: due, validAfterDueDays: 10, discountUntil: until });

    // 23:59 in Brasília on the discount's last day (02:59 UTC the next day): still discounted, DPP that day still accepted.
    await advanceTo(t, `${addDays(until, 1)}T02:59:00.000Z`);
    expect(today()).toBe(until);
    expect((await read(charge.pixEmv)).valor).toEqual({ original: '100.00', desconto: '5.00', final: '95.00' });
    expect((await read(charge.pixEmv, `?DPP=${until}`)).valor.desconto).toBe('5.00');
    // 00:00 in Brasília the next day: the discount is gone and its date is now in the past.
    await advanceTo(t, `${addDays(until, 1)}T03:00:00.000Z`);
    expect((await read(charge.pixEmv)).valor).toEqual({ original: '100.00', final: '100.00' });
    expect(await refused(charge.pixEmv, `?DPP=${until}`)).toEqual([expect.objectContaining({ propriedade: 'DPP', razao: expect.stringContaining('before today') })]);

    // The due date's last minute in Brasília: face value; a minute later, one day late.
    await advanceTo(t, `${addDays(due, 1)}T02:59:00.000Z`);
    expect((await read(charge.pixEmv)).valor).toEqual({ original: '100.00', final: '100.00' });
    await advanceTo(t, `${addDays(due, 1)}T03:00:00.000Z`);
    expect((await read(charge.pixEmv)).valor).toEqual(lateValor(1));
    expect(await refused(charge.pixEmv, `?DPP=${due}`)).toEqual([expect.objectContaining({ propriedade: 'DPP' })]);
  });
});
