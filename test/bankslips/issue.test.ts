import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { barcodeToLine, dueDateFactor, parseBarcode } from '../../src/domain/boleto.js';
import { addDays } from '../../src/domain/calendar.js';
import { parseBrCode } from '../../src/domain/pix.js';
import { loadConfig } from '../../src/config.js';
import { parseFreeField } from '../../src/modules/bankslips/free-field.js';
import { STATES } from '../../src/modules/bankslips/schemas.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { BASE, events, information, issue, issued, pay, runDueJobs, slipBody, today } from './support.js';

describe(`bank slip issue and registration (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant({ api: 'integration' });
  });
  afterAll(() => t.close());

  it('answers 201 with the detail record in status 1; the registration job makes it 2 with FEBRABAN barcode and line', async () => {
    const dueDate = addDays(await today(t), 30);
    const res = await issue(t, m, slipBody({ value: 1234.5, dueDate }));
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      value: 1234.5,
      issueDate: await today(t),
      dueDate,
      payerDocument: '52998224725',
      payerName: 'Maria da Silva',
      payerCityState: 'SP',
      payerPhoneNumber: '11999998888',
      status: 1,
      statusBill: 1,
      statusIntegration: 1,
      success: true,
      message: null,
      barCode: null,
      digitableLine: null,
      pixEmv: null,
      effectivePaymentDate: null,
      referenceCode: 'order-42',
      overdue: { allow: false, dateLimit: null, penaltyPercent: 0, interestPercentPerMonth: 0 },
    });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);

    await runDueJobs(t);
    const slip = await information(t, m, created.id);
    expect(slip).toMatchObject({ status: 2, statusBill: 2, statusIntegration: 2, success: true, pixEmv: null });
    const barcode = parseBarcode(slip.barCode)!;
    expect(barcode).toMatchObject({ bankCode: '001', currency: '9', amountCents: 123_450n, factor: dueDateFactor(dueDate) });
    expect(parseFreeField(barcode.freeField)).toEqual({ accountNumber: m.accountNumber, ourNumber: slip.ourNumber });
    expect(slip.digitableLine).toBe(barcodeToLine(slip.barCode));
    expect((await events(t, created.id)).map((e) => [e.old_status_bill, e.new_status_bill])).toEqual([[null, 1], [1, 2]]);
  });

  it('adds a Pix BR Code when asked (valid CRC; dynamic: a charge with a due date whose location the sandbox PSP serves with the day\'s amount, test/pix/; no amount in the code)', async () => {
    const slip = await issued(t, m, slipBody({ value: 99.9, pix: true }));
    const code = parseBrCode(slip.pixEmv);
    expect(code.ok).toBe(true);
    if (!code.ok) return;
    expect(code.value.amountCents).toBeUndefined();
    expect(code.value).toMatchObject({ dynamic: true, merchantName: 'LOJA TESTE', countryCode: 'BR', currency: '986' });
    expect(code.value.locationUrl).toBe(`localhost:8080/pix/v2/${code.value.txid}`);
  });

  it('accepts a CNPJ payer (alphanumeric too), every state code, a due date of today', async () => {
    for (const document of ['11222333000181', '12ABC34501DE35']) {
      expect((await issue(t, m, slipBody({}, { document }))).statusCode).toBe(201);
    }
    for (const state of STATES) expect((await issue(t, m, slipBody({}, { state }))).statusCode, state).toBe(201);
    expect(STATES).toHaveLength(27);
    expect((await issue(t, m, slipBody({ dueDate: await today(t) }))).statusCode).toBe(201);
  });

  describe('every validation, tagged with its field', () => {
    const cases: [string, () => Promise<object>, string][] = [
      ['value 0', async () => slipBody({ value: 0 }), 'value'],
      ['value negative', async () => slipBody({ value: -1 }), 'value'],
      ['value with 3 decimals', async () => slipBody({ value: 10.001 }), 'value'],
      ['value above the 10 barcode digits', async () => slipBody({ value: 100_000_000 }), 'value'],
      ['value as a string', async () => slipBody({ value: '10.00' }), 'value'],
      ['value missing', async () => slipBody({ value: undefined }), 'value'],
      ['dueDate yesterday', async () => slipBody({ dueDate: addDays(await today(t), -1) }), 'dueDate'],
      ['dueDate not a date', async () => slipBody({ dueDate: '2026-02-30' }), 'dueDate'],
      ['dueDate not YYYY-MM-DD', async () => slipBody({ dueDate: '20261201' }), 'dueDate'],
      ['dueDate beyond ten years', async () => slipBody({ dueDate: addDays(await today(t), 3651) }), 'dueDate'],
      ['payer.document check digit', async () => slipBody({}, { document: '52998224724' }), 'payer.document'],
      ['payer.document all equal digits', async () => slipBody({}, { document: '11111111111' }), 'payer.document'],
      ['payer.document masked', async () => slipBody({}, { document: '529.982.247-25' }), 'payer.document'],
      ['payer.document CNPJ check digit', async () => slipBody({}, { document: '11222333000182' }), 'payer.document'],
      ['payer.zipCode 7 digits', async () => slipBody({}, { zipCode: '1234567' }), 'payer.zipCode'],
      ['payer.zipCode with a dash', async () => slipBody({}, { zipCode: '01310-10' }), 'payer.zipCode'],
      ['payer.state unknown', async () => slipBody({}, { state: 'XX' }), 'payer.state'],
      ['payer.state lower case', async () => slipBody({}, { state: 'sp' }), 'payer.state'],
      ['payer.name empty', async () => slipBody({}, { name: '' }), 'payer.name'],
      ['payer.name blank', async () => slipBody({}, { name: '   ' }), 'payer.name'],
      ['payer.name over 50', async () => slipBody({}, { name: 'x'.repeat(51) }), 'payer.name'],
      ['payer.streetAndNumber over 100', async () => slipBody({}, { streetAndNumber: 'x'.repeat(101) }), 'payer.streetAndNumber'],
      ['payer.city missing', async () => slipBody({}, { city: undefined }), 'payer.city'],
      ['payer.neighborhood over 50', async () => slipBody({}, { neighborhood: 'x'.repeat(51) }), 'payer.neighborhood'],
      ['payer.phoneNumber letters', async () => slipBody({}, { phoneNumber: 'call me' }), 'payer.phoneNumber'],
      ['payer missing', async () => slipBody({ payer: undefined }), 'payer'],
      ['referenceCode over 100', async () => slipBody({ referenceCode: 'x'.repeat(101) }), 'referenceCode'],
      ['pix not a boolean', async () => slipBody({ pix: 'yes' }), 'pix'],
      ['overdue.allow missing', async () => slipBody({ overdue: { dateLimit: '2099-01-01' } }), 'overdue.allow'],
      ['overdue allowed without dateLimit', async () => slipBody({ overdue: { allow: true, penaltyPercent: 2 } }), 'overdue.dateLimit'],
      ['overdue dateLimit on the due date', async () => { const b = slipBody(); return { ...b, overdue: { allow: true, dateLimit: b.dueDate } }; }, 'overdue.dateLimit'],
      ['overdue dateLimit before the due date', async () => { const b = slipBody(); return { ...b, overdue: { allow: true, dateLimit: addDays(b.dueDate, -1) } }; }, 'overdue.dateLimit'],
      ['overdue penalty above 100', async () => { const b = slipBody(); return { ...b, overdue: { allow: true, dateLimit: addDays(b.dueDate, 30), penaltyPercent: 101 } }; }, 'overdue.penaltyPercent'],
      ['overdue penalty with 5 decimals', async () => { const b = slipBody(); return { ...b, overdue: { allow: true, dateLimit: addDays(b.dueDate, 30), penaltyPercent: 1.23456 } }; }, 'overdue.penaltyPercent'],
      ['overdue interest negative', async () => { const b = slipBody(); return { ...b, overdue: { allow: true, dateLimit: addDays(b.dueDate, 30), interestPercentPerMonth: -1 } }; }, 'overdue.interestPercentPerMonth'],
      ['overdue penalty while not allowed', async () => slipBody({ overdue: { allow: false, penaltyPercent: 2 } }), 'overdue.penaltyPercent'],
      ['overdue interest while not allowed', async () => slipBody({ overdue: { allow: false, interestPercentPerMonth: 1 } }), 'overdue.interestPercentPerMonth'],
      ['overdue dateLimit while not allowed', async () => slipBody({ overdue: { allow: false, dateLimit: '2099-01-01' } }), 'overdue.dateLimit'],
    ];
    for (const [name, body, tag] of cases) {
      it(`${name} -> 400 ${tag}`, async () => {
        const res = await issue(t, m, await body());
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json().map((e: { tag: string }) => e.tag)).toContain(tag);
      });
    }

    it('reports every problem of one request at once', async () => {
      // Shape problems (schema) are reported together, then the rules' problems together.
      const shape = await issue(t, m, slipBody({ pix: 1 }, { zipCode: 'x', state: 'XX' }));
      expect(shape.statusCode).toBe(400);
      expect(shape.json().map((e: { tag: string }) => e.tag).sort()).toEqual(['payer.state', 'payer.zipCode', 'pix']);
      const rules = await issue(t, m, slipBody({ value: 1.234, dueDate: '2020-01-01' }, { document: '123', name: ' ' }));
      expect(rules.statusCode).toBe(400);
      expect(rules.json().map((e: { tag: string }) => e.tag).sort()).toEqual(['dueDate', 'payer.document', 'payer.name', 'value']);
    });

    it('accepts consistent overdue terms and echoes them', async () => {
      const b = slipBody();
      const res = await issue(t, m, { ...b, overdue: { allow: true, dateLimit: addDays(b.dueDate, 1), penaltyPercent: 2, interestPercentPerMonth: 1.5 } });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().overdue).toEqual({ allow: true, dateLimit: addDays(b.dueDate, 1), penaltyPercent: 2, interestPercentPerMonth: 1.5 });
      const zero = await issue(t, m, slipBody({ overdue: { allow: false, penaltyPercent: 0 } }));
      expect(zero.statusCode).toBe(201);
    });
  });

  describe('ownership and authentication', () => {
    it('403 for another account, 400 for a malformed or missing one, 401 without an integration token', async () => {
      const other = await t.merchant({ api: 'integration' });
      const foreign = await issue(t, m, slipBody(), {}, other.accountNumber);
      expect(foreign.statusCode).toBe(403);
      expect(foreign.json()[0].tag).toBe('forbidden');
      for (const bad of ['abc', '0', '-5', '1.5', '']) {
        const res = await issue(t, m, slipBody(), {}, bad);
        expect(res.statusCode, bad).toBe(400);
        expect(res.json()[0].tag).toBe('query.accountNumber');
      }
      const missing = await t.inject({ method: 'POST', url: `${BASE}/issue`, headers: m.headers, payload: slipBody() });
      expect(missing.statusCode).toBe(400);
      expect(missing.json()[0].tag).toBe('query.accountNumber');
      expect((await issue(t, m, slipBody(), { authorization: 'Bearer nope' })).statusCode).toBe(401);
      const gateway = await t.merchant({ api: 'gateway' });
      const wrongApi = await t.inject({ method: 'POST', url: `${BASE}/issue?accountNumber=${gateway.accountNumber}`, headers: gateway.headers, payload: slipBody() });
      expect(wrongApi.statusCode).toBe(401);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first answer for the same key and body, and issues one slip only', async () => {
      const key = { 'idempotency-key': 'slip-order-1' };
      const first = await issue(t, m, slipBody({ referenceCode: 'idem-1' }), key);
      const again = await issue(t, m, slipBody({ referenceCode: 'idem-1' }), key);
      expect(first.statusCode).toBe(201);
      expect(again.statusCode).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json()).toEqual(first.json());
      const rows = await t.ctx.database.db.selectFrom('bankslips').select('id').where('reference_code', '=', 'idem-1').execute();
      expect(rows).toHaveLength(1);
      const reused = await issue(t, m, slipBody({ referenceCode: 'idem-2' }), key);
      expect(reused.statusCode).toBe(409);
      expect(reused.json()[0].tag).toBe('idempotency_key_reused');
    });
  });

  it('a slip the bank cannot register ends in 99 with the reason kept, and can be neither paid nor printed', async () => {
    // A merchant name with no Latin letters cannot be written in a Pix code (upper-case ASCII).
    const merchant = await t.ctx.merchants.create({ name: '東京商店', documentNumber: '11222333000181' });
    const credential = await t.ctx.merchants.createCredential(merchant.merchantId, { scopes: ['integration'] });
    const login = await t.inject({ method: 'POST', url: '/integration/api/authentication/login', payload: { userName: credential.userName, password: credential.password } });
    const tokyo = { ...m, merchantId: merchant.merchantId, accountNumber: merchant.accountNumber, headers: { authorization: `Bearer ${login.json().accessToken}` } };
    const slip = await issued(t, tokyo, slipBody({ pix: true }));
    expect(slip).toMatchObject({ status: 99, statusBill: 99, statusIntegration: 99, success: true, barCode: null, digitableLine: null });
    expect(slip.message).toMatch(/^Registration failed: the Pix code cannot be built/);
    expect((await events(t, slip.id)).map((e) => [e.old_status_bill, e.new_status_bill])).toEqual([[null, 1], [1, 99]]);
    expect((await pay(t, slip.id)).statusCode).toBe(409);
    const pdf = await t.inject({ method: 'GET', url: `${BASE}/${slip.id}/pdf?accountNumber=${tokyo.accountNumber}`, headers: tokyo.headers });
    expect(pdf.statusCode).toBe(409);
    // Without Pix the same merchant's slips register fine.
    expect((await issued(t, tokyo, slipBody())).statusBill).toBe(2);
  });
});

describe(`BANK_SLIP_BANK_CODE (${testDialect})`, () => {
  it('is 3 digits, 001 by default', () => {
    expect(loadConfig({}).bankSlipBankCode).toBe('001');
    expect(loadConfig({ BANK_SLIP_BANK_CODE: '237' }).bankSlipBankCode).toBe('237');
    for (const bad of ['12', '1234', 'abc', '23 7']) expect(() => loadConfig({ BANK_SLIP_BANK_CODE: bad }), bad).toThrow(/BANK_SLIP_BANK_CODE/);
  });

  it('starts every barcode', async () => {
    const t = await testApp({ env: { BANK_SLIP_BANK_CODE: '237' } });
    try {
      const m = await t.merchant({ api: 'integration' });
      const slip = await issued(t, m, slipBody());
      expect(slip.barCode.slice(0, 4)).toBe('2379');
      expect(slip.digitableLine.slice(0, 4)).toBe('2379');
    } finally {
      await t.close();
    }
  });
});
