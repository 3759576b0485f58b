import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/domain/calendar.js';
import { parseReturnFile } from '../../src/domain/cnab240-return.js';
import { ourNumberKey } from '../../src/modules/bankslips/cnab/files.js';
import { checkIssueRules } from '../../src/modules/bankslips/issue-rules.js';
import type { IssueBody } from '../../src/modules/bankslips/schemas.js';
import { DomainError } from '../../src/domain/errors.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { at, returnFile } from './cnab-files.js';
import { information, issued, pay, slipBody, today } from './support.js';

/** The alphanumeric CNPJ of the Receita Federal's example (check digits 35). */
const ALPHANUMERIC_CNPJ = '12ABC34501DE35';

const get = (t: TestApp, url: string) => t.inject({ method: 'GET', url, headers: t.adminHeaders });
const importFile = (t: TestApp, text: string) =>
  t.inject({ method: 'POST', url: '/admin/bankslips/returns', headers: { ...t.adminHeaders, 'content-type': 'text/plain' }, payload: text });
const lines = (body: string) => body.slice(0, -2).split('\r\n');

describe(`CNAB files of every slip the API accepts (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant({ api: 'integration' });
  });
  afterAll(() => t.close());

  it("an alphanumeric-CNPJ payer's slip, paid: the remittance, the sandbox's return and its import all answer, the CNPJ right-aligned with zeros", async () => {
    const day = await today(t);
    const slip = await issued(t, m, slipBody({ value: 45.6, dueDate: addDays(day, 10) }, { document: ALPHANUMERIC_CNPJ, name: 'Empresa Nova Ltda' }));
    expect((await pay(t, slip.id)).statusCode).toBe(200);

    const remittance = await get(t, `/admin/bankslips/remittance?date=${day}`);
    expect(remittance.statusCode, remittance.body).toBe(200);
    const q = lines(remittance.body).find((l, i, all) => at(l, 14, 14) === 'Q' && at(all[i - 1], 38, 57).trim() === slip.ourNumber)!;
    expect(at(q, 18, 33)).toBe(`2${'0' + ALPHANUMERIC_CNPJ}`);

    const sandbox = await get(t, `/sandbox/bankslips/returns?date=${day}`);
    expect(sandbox.statusCode, sandbox.body).toBe(200);
    const ts = lines(sandbox.body).filter((l) => at(l, 14, 14) === 'T' && at(l, 38, 57).trim() === slip.ourNumber);
    expect(ts.map((l) => at(l, 16, 17)).sort()).toEqual(['02', '06']);
    for (const tLine of ts) expect(at(tLine, 133, 148)).toBe(`2${'0' + ALPHANUMERIC_CNPJ}`);
    const imported = await importFile(t, sandbox.body);
    expect(imported.statusCode, imported.body).toBe(200);
    expect(imported.json()).toMatchObject({ applied: 0, rejected: 0, errors: [] });
    expect(await information(t, m, slip.id)).toMatchObject({ statusBill: 3, payerDocument: ALPHANUMERIC_CNPJ });
  });

  it("the sandbox's return file: its batch trailer counts the titles of its T/U pairs and their value (positions 24-29, 30-46)", async () => {
    const day = await today(t);
    const a = await issued(t, m, slipBody({ value: 10.01, dueDate: addDays(day, 5) }));
    const b = await issued(t, m, slipBody({ value: 20.02, dueDate: addDays(day, 5) }));
    expect((await pay(t, b.id)).statusCode).toBe(200);
    const res = await get(t, `/sandbox/bankslips/returns?date=${day}`);
    const all = lines(res.body);
    expect(parseReturnFile(res.body).errors).toEqual([]);
    const titles = all.filter((l) => at(l, 8, 8) === '3' && at(l, 14, 14) === 'T');
    expect(titles.map((l) => at(l, 38, 57).trim())).toEqual(expect.arrayContaining([a.ourNumber, b.ourNumber, b.ourNumber]));
    const trailer = all.find((l) => at(l, 8, 8) === '5')!;
    expect(Number(at(trailer, 18, 23))).toBe(titles.length * 2 + 2);
    expect(Number(at(trailer, 24, 29))).toBe(titles.length);
    expect(Number(at(trailer, 30, 46))).toBe(titles.reduce((sum, l) => sum + Number(at(l, 82, 96)), 0));
    expect(Number(at(trailer, 30, 46))).toBeGreaterThanOrEqual(1001 + 2002 + 2002);
  });

  it('a return whose nosso número is right-aligned with zeros to 20 positions names the same slip as a left-aligned one', async () => {
    const day = await today(t);
    const slip = await issued(t, m, slipBody({ value: 12.34, dueDate: addDays(day, 10) }));
    const record = { movement: '02', ourNumber: slip.ourNumber.padStart(20, '0'), dueDate: slip.dueDate, valueCents: 1234n };
    const res = await importFile(t, returnFile([record]));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ rejected: 0, errors: [] });
    const left = await importFile(t, returnFile([{ ...record, ourNumber: slip.ourNumber }]));
    expect(left.json()).toMatchObject({ applied: 0, unchanged: 1, errors: [] });
    expect(ourNumberKey(`00000${slip.ourNumber}`)).toBe(slip.ourNumber);
    expect(ourNumberKey('123')).toBe('123');
    // Zero-padded but not one of ours: still unknown.
    const unknown = await importFile(t, returnFile([{ ...record, ourNumber: '1'.padStart(20, '0') }]));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0].description).toMatch(/unknown nosso número 0+1:/);
  });
});

describe('the issue API refuses what the bank layout cannot carry', () => {
  it('an alphanumeric CNPJ when the layout does not take it: 400 on payer.document; a numeric one is fine', () => {
    const body = slipBody({}, { document: ALPHANUMERIC_CNPJ }) as unknown as IssueBody;
    const todayIso = new Date().toISOString().slice(0, 10);
    let error: unknown;
    try {
      checkIssueRules(body, todayIso, false);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('invalid');
    expect((error as DomainError).errors).toEqual([{ tag: 'payer.document', description: expect.stringContaining('alphanumeric CNPJ') }]);
    expect(checkIssueRules(body, todayIso, true).payer.document).toBe(ALPHANUMERIC_CNPJ);
    expect(checkIssueRules(slipBody({}, { document: '11222333000181' }) as unknown as IssueBody, todayIso, false).payer.document).toBe('11222333000181');
  });
});

describe(`another bank's code: FEBRABAN's generic layout (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await testApp({ env: { BANK_SLIP_BANK_CODE: '237' } });
    m = await t.merchant({ api: 'integration' });
  });
  afterAll(() => t.close());

  it("the convênio in FEBRABAN's 20 positions, segment P 58 the carteira code; an alphanumeric-CNPJ payer too", async () => {
    const day = await today(t);
    const slip = await issued(t, m, slipBody({ value: 5, dueDate: addDays(day, 10) }, { document: ALPHANUMERIC_CNPJ }));
    const remit = lines((await get(t, `/admin/bankslips/remittance?date=${day}`)).body);
    expect(at(remit[0], 1, 3)).toBe('237');
    expect(at(remit[0], 33, 52)).toBe('1234567'.padEnd(20, ' '));
    expect(at(remit[1], 34, 53)).toBe('1234567'.padEnd(20, ' '));
    const p = remit.find((l) => at(l, 14, 14) === 'P' && at(l, 38, 57).trim() === slip.ourNumber)!;
    expect(at(p, 58, 58)).toBe('1');
    expect((await get(t, `/sandbox/bankslips/returns?date=${day}`)).statusCode).toBe(200);
  });
});
