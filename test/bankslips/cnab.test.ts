import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { addDays, businessDayAfter, daysBetween, isBusinessDay, nextBusinessDay } from '../../src/domain/calendar.js';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { at, ddmmyyyy, returnFile, type ReturnRecord } from './cnab-files.js';
import { advanceTo, information, issued, list, pay, slipBody, today } from './support.js';

const importFile = (t: TestApp, text: string, headers: Record<string, string> = t.adminHeaders) =>
  t.inject({ method: 'POST', url: '/admin/bankslips/returns', headers: { ...headers, 'content-type': 'text/plain' }, payload: text });

const remittance = (t: TestApp, date: string, headers: Record<string, string> = t.adminHeaders) =>
  t.inject({ method: 'GET', url: `/admin/bankslips/remittance?date=${date}`, headers });

const cents = (reais: number) => BigInt(Math.round(reais * 100));

/** The slip's row as stored (fields the API does not show: canceled_by, failure reasons). */
const row = (t: TestApp, id: string) => t.ctx.database.db.selectFrom('bankslips').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** The BankSlipStatus notifications of a slip, oldest first: [oldValue, newValue]. */
async function notifications(t: TestApp, id: string): Promise<[string, string][]> {
  const rows = await t.ctx.database.db.selectFrom('webhook_notifications').select(['payload', 'type']).where('type', '=', 'BankSlipStatus').orderBy('id').execute();
  return rows.map((r) => JSON.parse(r.payload)).filter((p) => p.nsu === id).map((p) => [p.oldValue, p.newValue]);
}

/** The first business day on or after `from`. */
const businessDay = (from: string) => (isBusinessDay(from) ? from : nextBusinessDay(from));

describe(`CNAB 240 with the bank (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant({ api: 'integration' });
    const sub = await t.inject({ method: 'POST', url: `/integration/api/webhooks/subscriptions?accountNumber=${m.accountNumber}`, headers: m.headers, payload: { url: 'http://127.0.0.1:9/hook' } });
    expect(sub.statusCode, sub.body).toBe(200);
  });
  afterAll(() => t.close());

  const paidRecord = (slip: any, paidCents: bigint, paymentDate: string, extra: Partial<ReturnRecord> = {}): ReturnRecord => ({
    movement: '06',
    ourNumber: slip.ourNumber,
    dueDate: slip.dueDate,
    valueCents: cents(slip.value),
    paidCents,
    paymentDate,
    creditDate: businessDayAfter(paymentDate),
    ...extra,
  });

  it('the remittance file, field by field, for a slip with every option, a plain slip and a cancelled one', async () => {
    const day = await today(t);
    const due = addDays(day, 20);
    const full = await issued(t, m, {
      ...slipBody({ value: 1234.56, dueDate: due, pix: true, referenceCode: 'pedido-987' }, { name: 'João Conceição', city: 'São Paulo', document: '52998224725' }),
      overdue: { allow: true, dateLimit: addDays(due, 30), penaltyPercent: 2, interestPercentPerMonth: 1.5 },
    });
    const plain = await issued(t, m, slipBody({ value: 10, dueDate: due }, { document: '11444777000161', name: 'Empresa Pagadora Ltda' }));
    const cancelled = await issued(t, m, slipBody({ value: 20, dueDate: due }));
    const cancel = await t.inject({ method: 'POST', url: `/integration/api/billissuer/${cancelled.id}/cancel?accountNumber=${m.accountNumber}`, headers: m.headers, payload: { reason: 'order cancelled' } });
    expect(cancel.statusCode, cancel.body).toBe(200);

    const res = await remittance(t, day);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="remessa-${day.replaceAll('-', '')}.rem"`);
    expect(res.body.endsWith('\r\n')).toBe(true);
    const lines = res.body.slice(0, -2).split('\r\n');
    for (const line of lines) expect(line).toHaveLength(240);
    // header, batch header, P Q R x 3 issued slips (the cancelled one was issued today too), P for the cancellation, 2 trailers
    expect(lines).toHaveLength(2 + 9 + 1 + 2);
    const [header, batch] = lines;
    expect(at(header, 1, 3)).toBe('001');
    expect(at(header, 4, 8)).toBe('00000');
    expect(at(header, 18, 18)).toBe('2');
    expect(at(header, 19, 32)).toBe('11222333000181');
    // Banco do Brasil's header (its manual's fields 07.0 BB1-BB5): convênio, 0014, carteira, variação, reserved.
    expect(at(header, 33, 41)).toBe('001234567');
    expect(at(header, 42, 45)).toBe('0014');
    expect(at(header, 46, 47)).toBe('17');
    expect(at(header, 48, 50)).toBe('019');
    expect(at(header, 51, 52)).toBe('  ');
    expect(at(header, 53, 58)).toBe('000019');
    expect(at(header, 59, 71)).toBe('0000001234567');
    expect(at(header, 73, 102).trim()).toBe('GATEWAY SANDBOX PAGAMENTOS LTD');
    expect(at(header, 143, 143)).toBe('1');
    expect(at(header, 144, 151)).toBe(ddmmyyyy(day));
    expect(at(batch, 8, 11)).toBe('1R01');
    expect(at(batch, 19, 33)).toBe('011222333000181');
    // The batch header's (11.1 BB1-BB5): one position later than the file header's.
    expect(at(batch, 34, 42)).toBe('001234567');
    expect(at(batch, 43, 46)).toBe('0014');
    expect(at(batch, 47, 48)).toBe('17');
    expect(at(batch, 49, 51)).toBe('019');
    expect(at(batch, 52, 53)).toBe('  ');
    expect(at(batch, 54, 59)).toBe('000019');
    expect(at(batch, 192, 199)).toBe(ddmmyyyy(day));

    const [p, q, r] = lines.slice(2, 5);
    expect(at(p, 1, 17)).toBe('0010001300001P 01');
    expect(at(p, 18, 37)).toBe('00001' + '9' + '000000123456' + '7' + ' ');
    expect(at(p, 38, 57)).toBe(full.ourNumber.padEnd(20, ' '));
    expect(at(p, 58, 58)).toBe('7'); // BB: carteira 17 modalidade simples
    expect(at(p, 63, 77)).toBe(full.ourNumber);
    expect(at(p, 78, 85)).toBe(ddmmyyyy(due));
    expect(at(p, 86, 100)).toBe('000000000123456');
    expect(at(p, 107, 109)).toBe('02N');
    expect(at(p, 110, 117)).toBe(ddmmyyyy(day));
    expect(at(p, 118, 118)).toBe('2'); // monthly interest rate
    expect(at(p, 119, 126)).toBe(ddmmyyyy(addDays(due, 1)));
    expect(at(p, 127, 141)).toBe('000000000000150'); // 1.50 %
    expect(at(p, 142, 142)).toBe('0');
    expect(at(p, 196, 220)).toBe('PEDIDO-987'.padEnd(25, ' '));
    expect(at(p, 221, 229)).toBe('300103009'); // no protest, write off 30 days after due, in reais
    expect(at(q, 14, 17)).toBe('Q 01');
    expect(at(q, 18, 33)).toBe('1000052998224725');
    expect(at(q, 34, 73).trim()).toBe('JOAO CONCEICAO');
    expect(at(q, 74, 113).trim()).toBe('RUA DAS FLORES, 123');
    expect(at(q, 114, 128).trim()).toBe('BELA VISTA');
    expect(at(q, 129, 136)).toBe('01310100');
    expect(at(q, 137, 153)).toBe('SAO PAULO      SP');
    expect(at(q, 154, 169)).toBe('2011222333000181'); // sacador/avalista: the merchant
    expect(at(q, 170, 209).trim()).toBe('LOJA TESTE');
    expect(at(r, 14, 17)).toBe('R 01');
    expect(at(r, 66, 74)).toBe(`2${ddmmyyyy(addDays(due, 1))}`);
    expect(at(r, 75, 89)).toBe('000000000000200'); // 2.00 % penalty
    expect(at(r, 100, 139).trim()).toBe(`NAO RECEBER APOS ${ddmmyyyy(addDays(due, 30)).replace(/^(\d\d)(\d\d)/, '$1/$2/')}`);

    const [p2, q2, r2] = lines.slice(5, 8);
    expect(at(p2, 38, 57).trim()).toBe(plain.ourNumber);
    expect(at(p2, 118, 141)).toBe(`3${'0'.repeat(23)}`); // no interest
    expect(at(p2, 224, 227)).toBe(`1${String(daysBetween(due, nextBusinessDay(due))).padStart(3, '0')}`); // up to the next business day
    expect(at(q2, 18, 33)).toBe('2011444777000161');
    expect(at(r2, 66, 89)).toBe(`0${'0'.repeat(23)}`); // no penalty

    const baixa = lines[11];
    expect(at(baixa, 14, 17)).toBe('P 02');
    expect(at(baixa, 38, 57).trim()).toBe(cancelled.ourNumber);
    const [batchTrailer, fileTrailer] = lines.slice(-2);
    expect(at(batchTrailer, 8, 8)).toBe('5');
    expect(at(batchTrailer, 18, 23)).toBe('000012'); // 10 details + its header and trailer
    expect(at(batchTrailer, 24, 46)).toBe(`000003${String(123456 + 1000 + 2000).padStart(17, '0')}`);
    expect(at(fileTrailer, 1, 29)).toBe('00199999         000001000014');
  });

  it('remittance: an empty day is headers and trailers; bad dates are 400; the operator key is required', async () => {
    const empty = await remittance(t, '2020-01-01');
    expect(empty.statusCode).toBe(200);
    expect(empty.body.split('\r\n').filter(Boolean)).toHaveLength(4);
    expect((await remittance(t, '2020-02-30')).statusCode).toBe(400);
    expect((await remittance(t, 'tomorrow')).statusCode).toBe(400);
    expect((await remittance(t, '2020-01-01', {})).statusCode).toBe(401);
    const doc = (await t.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/admin/bankslips/remittance', '/admin/bankslips/returns', '/sandbox/bankslips/returns']));
    expect(doc.paths['/admin/bankslips/returns'].post.responses[400].content['application/json'].schema.properties).toHaveProperty('errors');
  });

  it('paid on time: the slip is paid with the dates of the file, listed by credit date, notified; the same file again changes nothing', async () => {
    const slip = await issued(t, m, slipBody({ value: 321.09, dueDate: addDays(await today(t), 10) }));
    const day = await today(t);
    const credit = addDays(businessDay(addDays(day, 1)), 1); // the bank says when it credits, not our rule
    const file = returnFile([paidRecord(slip, 32109n, day, { creditDate: credit })]);
    const res = await importFile(t, file);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ applied: 1, unchanged: 0, rejected: 0, errors: [] });
    expect(await information(t, m, slip.id)).toMatchObject({
      statusBill: 3,
      statusIntegration: 2,
      effectivePaymentDate: day,
      effectiveCreditDate: credit,
      effectivePaymentValue: 321.09,
      overduePenaltyReceived: 0,
      overdueInterestReceived: 0,
    });
    const listed = await list(t, m, 'credit-date', { startDate: credit, endDate: credit });
    expect(listed.json().map((s: any) => s.Id)).toContain(slip.id);
    expect(await notifications(t, slip.id)).toEqual([['', '1'], ['1', '2'], ['2', '3']]);

    const again = await importFile(t, file);
    expect(again.json()).toEqual({ applied: 0, unchanged: 1, rejected: 0, errors: [] });
    expect(await notifications(t, slip.id)).toHaveLength(3);
    // The sandbox's pay button agrees: already paid.
    expect((await pay(t, slip.id)).statusCode).toBe(409);
  });

  it('paid late: penalty and interest as the bank reports them, split by the slip terms; overdue 9 -> 3 notified', async () => {
    const start = await today(t);
    const due = businessDay(addDays(start, 3));
    const slip = await issued(t, m, { ...slipBody({ value: 1000, dueDate: due }), overdue: { allow: true, dateLimit: addDays(due, 30), penaltyPercent: 2, interestPercentPerMonth: 1 } });
    const paidDay = addDays(due, 10);
    await advanceTo(t, `${paidDay}T12:00:00.000Z`);
    expect((await information(t, m, slip.id)).statusBill).toBe(9);
    // 1000.00 + 20.00 penalty + 3.33 interest (10 days at 1 % a month).
    const res = await importFile(t, returnFile([paidRecord(slip, 102333n, paidDay, { chargesCents: 2333n })]));
    expect(res.json()).toEqual({ applied: 1, unchanged: 0, rejected: 0, errors: [] });
    expect(await information(t, m, slip.id)).toMatchObject({
      statusBill: 3,
      effectivePaymentDate: paidDay,
      effectiveCreditDate: businessDayAfter(paidDay),
      effectivePaymentValue: 1023.33,
      overduePenaltyReceived: 20,
      overdueInterestReceived: 3.33,
    });
    expect((await notifications(t, slip.id)).slice(-2)).toEqual([['2', '9'], ['9', '3']]);
    const credit = await list(t, m, 'credit-date', { startDate: businessDayAfter(paidDay), endDate: businessDayAfter(paidDay) });
    expect(credit.json().find((s: any) => s.Id === slip.id)).toMatchObject({ OverduePenaltyReceived: 20, OverdueInterestReceived: 3.33, EffectivePaymentValue: 1023.33 });
  });

  it('partially paid: the money that arrived is recorded, below the value (liquidação por conta)', async () => {
    const slip = await issued(t, m, slipBody({ value: 150.75, dueDate: addDays(await today(t), 10) }));
    const day = await today(t);
    const res = await importFile(t, returnFile([paidRecord(slip, 10000n, day, { reasons: '02' })]));
    expect(res.json()).toMatchObject({ applied: 1, errors: [] });
    expect(await information(t, m, slip.id)).toMatchObject({ statusBill: 3, value: 150.75, effectivePaymentValue: 100, overduePenaltyReceived: 0, overdueInterestReceived: 0 });
  });

  it("rejected by the bank: statusIntegration 9 and statusBill 99 with the bank's reason; it cannot be paid", async () => {
    const slip = await issued(t, m, slipBody({ dueDate: addDays(await today(t), 10) }));
    const record: ReturnRecord = { movement: '03', ourNumber: slip.ourNumber, dueDate: slip.dueDate, valueCents: cents(slip.value), reasons: '4846' };
    const res = await importFile(t, returnFile([record]));
    expect(res.json()).toEqual({ applied: 1, unchanged: 0, rejected: 0, errors: [] });
    const detail = await information(t, m, slip.id);
    expect(detail).toMatchObject({ statusBill: 99, statusIntegration: 9 });
    expect(detail.message).toBe('Rejected by the bank: 48 invalid CEP; 46 invalid payer document');
    expect((await notifications(t, slip.id)).at(-1)).toEqual(['2', '99']);
    expect((await pay(t, slip.id)).statusCode).toBe(409);
    expect((await importFile(t, returnFile([record]))).json()).toMatchObject({ applied: 0, unchanged: 1 });
    // A payment the bank reports for it anyway is not applied over the rejection: the operator is told.
    const paid = await importFile(t, returnFile([paidRecord(slip, cents(slip.value), await today(t))]));
    expect(paid.statusCode).toBe(200);
    expect(paid.json()).toEqual({ applied: 0, unchanged: 0, rejected: 1, errors: [{ line: 3, description: expect.stringContaining('statusBill 99') }] });
  });

  it('written off by the bank: cancelled with the reason, not sent back in the remittance, no longer payable or overdue', async () => {
    const day = await today(t);
    const slip = await issued(t, m, slipBody({ dueDate: addDays(day, 10) }));
    const record: ReturnRecord = { movement: '09', ourNumber: slip.ourNumber, dueDate: slip.dueDate, valueCents: cents(slip.value), reasons: '09', paymentDate: day };
    expect((await importFile(t, returnFile([record]))).json()).toEqual({ applied: 1, unchanged: 0, rejected: 0, errors: [] });
    expect(await row(t, slip.id)).toMatchObject({ canceled_at: `${day}T00:00:00.000Z`, cancellation_reason: 'Written off by the bank: 09 by the bank', canceled_by: 'bank', status_bill: 2 });
    expect((await pay(t, slip.id)).statusCode).toBe(409);
    const file = (await remittance(t, day)).body;
    expect(file.split('\r\n').filter((l) => at(l, 14, 17) === 'P 02' && at(l, 38, 57).trim() === slip.ourNumber)).toEqual([]);
    expect((await importFile(t, returnFile([record]))).json()).toMatchObject({ applied: 0, unchanged: 1 });
    // Its overdue check went with it: past the due date it is still 2, not 9.
    await advanceTo(t, `${addDays(slip.dueDate, 1)}T06:00:00.000Z`);
    expect((await row(t, slip.id)).status_bill).toBe(2);
  });

  it('accented names in a file sent in Latin-1 (one byte a character) or in UTF-8 (two): 240 characters either way', async () => {
    for (const encoding of ['latin1', 'utf8'] as const) {
      const slip = await issued(t, m, slipBody({ value: 33, dueDate: addDays(await today(t), 10) }));
      const lines = returnFile([paidRecord(slip, 3300n, await today(t))]).split('\r\n');
      lines[2] = `${lines[2].slice(0, 148)}${'JOÃO CONCEIÇÃO'.padEnd(40, ' ')}${lines[2].slice(188)}`;
      const payload = Buffer.from(lines.join('\r\n'), encoding);
      const res = await t.inject({ method: 'POST', url: '/admin/bankslips/returns', headers: { ...t.adminHeaders, 'content-type': 'application/octet-stream' }, payload });
      expect(res.json(), encoding).toEqual({ applied: 1, unchanged: 0, rejected: 0, errors: [] });
    }
  });

  it('a second, different payment of a paid slip is rejected and named; the rest of the file applies', async () => {
    const day = await today(t);
    const a = await issued(t, m, slipBody({ value: 50, dueDate: addDays(day, 10) }));
    const b = await issued(t, m, slipBody({ value: 60, dueDate: addDays(day, 10) }));
    expect((await pay(t, a.id)).statusCode).toBe(200);
    const res = await importFile(t, returnFile([paidRecord(a, 4000n, day), paidRecord(b, 6000n, day)]));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ applied: 1, unchanged: 0, rejected: 1, errors: [{ line: 3, description: expect.stringContaining('already paid (50.00') }] });
    expect((await information(t, m, a.id)).effectivePaymentValue).toBe(50);
    expect((await information(t, m, b.id)).statusBill).toBe(3);
  });

  describe('a malformed file changes nothing and names each bad line', () => {
    let good: any;
    let goodRecord: ReturnRecord;
    beforeAll(async () => {
      good = await issued(t, m, slipBody({ value: 77.7, dueDate: addDays(await today(t), 10) }));
      goodRecord = paidRecord(good, 7770n, await today(t));
    });

    async function refused(file: string, errors: { line: number; description: unknown }[]) {
      const res = await importFile(t, file);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toEqual({ applied: 0, unchanged: 0, rejected: 0, errors });
      expect(await information(t, m, good.id)).toMatchObject({ statusBill: 2, effectivePaymentValue: null });
    }

    it('a short line', async () => {
      const lines = returnFile([goodRecord, goodRecord]).split('\r\n');
      lines[4] = lines[4].slice(0, 239);
      await refused(lines.join('\r\n'), [{ line: 5, description: 'record has 239 characters; CNAB 240 records have 240' }]);
    });

    it('a wrong record count in the batch trailer and in the file trailer', async () => {
      await refused(returnFile([goodRecord], { batchCount: 5 }), [{ line: 5, description: 'batch trailer counts 5 records; the batch has 4' }]);
      await refused(returnFile([goodRecord], { fileCount: 7 }), [{ line: 6, description: 'file trailer counts 7 records; the file has 6' }]);
    });

    it('an unknown nosso número', async () => {
      const unknown = { ...goodRecord, ourNumber: '999999999999990' };
      await refused(returnFile([goodRecord, unknown]), [{ line: 5, description: 'unknown nosso número 999999999999990: no bank slip of this gateway has it' }]);
    });

    it('a bad amount: letters in the paid value, a zero payment, a value that is not the slip value', async () => {
      const lines = returnFile([goodRecord]).split('\r\n');
      lines[3] = `${lines[3].slice(0, 80)}12,50${lines[3].slice(85)}`; // positions 81-85 of segment U (paid value)
      await refused(lines.join('\r\n'), [{ line: 4, description: expect.stringMatching(/^the paid value \(positions 78-92\) is not an amount: "\d+12,50\d+"$/) }]);
      await refused(returnFile([{ ...goodRecord, paidCents: 0n }]), [{ line: 3, description: expect.stringContaining('must be more than zero') }]);
      await refused(returnFile([{ ...goodRecord, valueCents: 7771n }]), [{ line: 3, description: expect.stringContaining('differs from bank slip') }]);
    });

    it('every problem of one file at once, each with its line', async () => {
      const lines = returnFile([goodRecord, { ...goodRecord, ourNumber: '123' }, goodRecord]).split('\r\n');
      lines[7] = lines[7].slice(0, 200); // the third record's U
      const res = await importFile(t, lines.join('\r\n'));
      expect(res.statusCode).toBe(400);
      expect(res.json().errors.map((e: any) => e.line)).toEqual([5, 8]); // the unknown slip, the short U (its T is not reported again)
      expect(await information(t, m, good.id)).toMatchObject({ statusBill: 2 });
    });

    it('not a return file: a remittance, another bank, an empty body', async () => {
      const remit = (await remittance(t, await today(t))).body;
      expect((await importFile(t, remit)).json().errors[0]).toEqual({ line: 1, description: expect.stringContaining('retorno') });
      expect((await importFile(t, returnFile([goodRecord], { bank: '237' }))).json().errors).toContainEqual({ line: 1, description: expect.stringContaining('bank 237') });
      expect((await importFile(t, '')).statusCode).toBe(400);
      const json = await t.inject({ method: 'POST', url: '/admin/bankslips/returns', headers: t.adminHeaders, payload: { file: 'x' } });
      expect(json.statusCode).toBe(415);
      expect(json.json()[0].tag).toBe('content-type');
      expect((await importFile(t, returnFile([goodRecord]), {})).statusCode).toBe(401);
    });
  });

  it("the sandbox's return file carries what was paid there; imported, everything is already applied", async () => {
    const day = await today(t);
    const slip = await issued(t, m, slipBody({ value: 88.8, dueDate: addDays(day, 10) }));
    expect((await pay(t, slip.id)).statusCode).toBe(200);
    const res = await t.inject({ method: 'GET', url: `/sandbox/bankslips/returns?date=${day}`, headers: t.adminHeaders });
    expect(res.statusCode).toBe(200);
    const lines = res.body.slice(0, -2).split('\r\n');
    for (const line of lines) expect(line).toHaveLength(240);
    expect(at(lines[0], 143, 143)).toBe('2');
    const t06 = lines.findIndex((l) => at(l, 14, 17) === 'T 06' && at(l, 38, 57).trim() === slip.ourNumber);
    expect(t06).toBeGreaterThan(0);
    const u = lines[t06 + 1];
    expect(at(u, 14, 17)).toBe('U 06');
    expect(at(u, 78, 92)).toBe('000000000008880');
    expect(at(u, 138, 153)).toBe(ddmmyyyy(day) + ddmmyyyy(businessDayAfter(day)));
    expect(lines.some((l) => at(l, 14, 17) === 'T 02' && at(l, 38, 57).trim() === slip.ourNumber)).toBe(true);
    const imported = await importFile(t, res.body);
    expect(imported.statusCode, imported.body).toBe(200);
    expect(imported.json()).toMatchObject({ applied: 0, rejected: 0, errors: [] });
    expect(imported.json().unchanged).toBe((lines.length - 4) / 2);
  });

  it('the command line: gateway bankslips remittance and gateway bankslips import FILE', async () => {
    const day = await today(t);
    const slip = await issued(t, m, slipBody({ value: 12.34, dueDate: addDays(day, 10) }));
    const out: string[] = [];
    const io = { out: (s: string) => out.push(s), err: (s: string) => out.push(s) };
    expect(await runCli(['bankslips', 'remittance', '--date', day], io, t.ctx), out.join('\n')).toBe(0);
    expect(out.join('\n').split('\r\n').some((l) => at(l, 38, 57).trim() === slip.ourNumber)).toBe(true);

    const dir = mkdtempSync(join(tmpdir(), 'cnab-'));
    const file = join(dir, 'retorno.ret');
    writeFileSync(file, returnFile([paidRecord(slip, 1234n, day)]), 'latin1');
    out.length = 0;
    expect(await runCli(['bankslips', 'import', file], io, t.ctx)).toBe(0);
    expect(JSON.parse(out.join(''))).toEqual({ applied: 1, unchanged: 0, rejected: 0, errors: [] });
    out.length = 0;
    writeFileSync(file, readFileSync(file, 'latin1').slice(0, 100), 'latin1');
    expect(await runCli(['bankslips', 'import', file], io, t.ctx)).toBe(1);
    expect(JSON.parse(out.join('')).errors.length).toBeGreaterThan(0);
  });
});

describe(`BANK_SLIP_PROVIDER=cnab: registered when the bank confirms (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await testApp({
      env: {
        BANK_SLIP_PROVIDER: 'cnab',
        BANK_SLIP_BENEFICIARY_NAME: 'Operadora de Pagamentos SA',
        BANK_SLIP_BENEFICIARY_DOCUMENT: '11444777000161',
        BANK_SLIP_BENEFICIARY_ADDRESS: 'Rua Um, 1, Centro, Curitiba/PR, 80000-000',
        BANK_SLIP_AGENCY: '4321-0',
        BANK_SLIP_ACCOUNT: '98765-4',
        BANK_SLIP_AGREEMENT: '7654321',
        BANK_SLIP_WALLET: '11',
        BANK_SLIP_WALLET_VARIATION: '27',
      },
    });
    m = await t.merchant({ api: 'integration' });
  });
  afterAll(() => t.close());

  it('statusIntegration stays 1 until the return file confirms the entry (02), then 2; the remittance names the configured account', async () => {
    const day = await today(t);
    const slip = await issued(t, m, slipBody({ dueDate: addDays(day, 10) }));
    expect(slip).toMatchObject({ statusBill: 2, statusIntegration: 1 });
    const remit = (await remittance(t, day)).body.split('\r\n');
    expect(at(remit[0], 19, 32)).toBe('11444777000161');
    expect(at(remit[0], 53, 72)).toBe('04321' + '0' + '000000098765' + '4' + ' ');
    expect(at(remit[0], 33, 52)).toBe('007654321' + '0014' + '11' + '027' + '  ');
    expect(at(remit[1], 34, 53)).toBe('007654321' + '0014' + '11' + '027' + '  ');
    expect(at(remit[2], 58, 58)).toBe('1'); // carteira 11 simples
    const record: ReturnRecord = { movement: '02', ourNumber: slip.ourNumber, dueDate: slip.dueDate, valueCents: cents(slip.value) };
    expect((await importFile(t, returnFile([record]))).json()).toEqual({ applied: 1, unchanged: 0, rejected: 0, errors: [] });
    expect(await information(t, m, slip.id)).toMatchObject({ statusBill: 2, statusIntegration: 2 });
    expect((await importFile(t, returnFile([record]))).json()).toMatchObject({ applied: 0, unchanged: 1 });
  });

  it('refuses to start half-configured', async () => {
    const { loadConfig } = await import('../../src/config.js');
    expect(() => loadConfig({ BANK_SLIP_PROVIDER: 'cnab', BANK_SLIP_AGENCY: '1' })).toThrow(/BANK_SLIP_BENEFICIARY_NAME/);
    expect(() => loadConfig({ BANK_SLIP_PROVIDER: 'bank' })).toThrow(/BANK_SLIP_PROVIDER/);
    const account = {
      BANK_SLIP_PROVIDER: 'cnab', BANK_SLIP_BENEFICIARY_NAME: 'Op', BANK_SLIP_BENEFICIARY_DOCUMENT: '11444777000161', BANK_SLIP_BENEFICIARY_ADDRESS: 'Rua Um, 1',
      BANK_SLIP_AGENCY: '4321-0', BANK_SLIP_ACCOUNT: '98765-4', BANK_SLIP_AGREEMENT: '7654321',
    };
    // Banco do Brasil's carteira and variação are required with cnab, and checked against its manual.
    expect(() => loadConfig(account)).toThrow(/BANK_SLIP_WALLET, BANK_SLIP_WALLET_VARIATION/);
    expect(() => loadConfig({ ...account, BANK_SLIP_WALLET: '1', BANK_SLIP_WALLET_VARIATION: '19' })).toThrow(/Banco do Brasil carteira/);
    expect(() => loadConfig({ ...account, BANK_SLIP_WALLET: '17', BANK_SLIP_WALLET_VARIATION: '0190' })).toThrow(/BANK_SLIP_WALLET_VARIATION/);
    expect(() => loadConfig({ ...account, BANK_SLIP_WALLET: '17', BANK_SLIP_WALLET_VARIATION: '19', BANK_SLIP_AGREEMENT: '1234567890' })).toThrow(/9 digits/);
    expect(loadConfig({ ...account, BANK_SLIP_WALLET: '17', BANK_SLIP_WALLET_VARIATION: '19' }).bankSlip).toMatchObject({ wallet: '17', walletVariation: '19' });
    // Another bank: FEBRABAN's generic layout, whose carteira is its code 1 to 5.
    expect(() => loadConfig({ ...account, BANK_SLIP_BANK_CODE: '237', BANK_SLIP_WALLET: '9' })).toThrow(/carteira code 1 to 5/);
    expect(loadConfig({ ...account, BANK_SLIP_BANK_CODE: '237', BANK_SLIP_WALLET: '2' }).bankSlip.wallet).toBe('2');
  });
});
