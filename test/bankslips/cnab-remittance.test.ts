import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { BankSlipRow } from '../../src/modules/bankslips/row.js';
import { buildRemittance, writeOffTerms } from '../../src/modules/bankslips/cnab/remittance.js';
import { at } from './cnab-files.js';

/** A registered slip row as the database holds it (only what the remittance reads matters). */
function slipRow(overrides: Partial<BankSlipRow> = {}): BankSlipRow {
  return {
    seq: 7, id: 'a', merchant_id: 'mer_1', account_number: 100001, value: 1000, issue_date: '2026-03-02', due_date: '2026-03-10',
    payer_document: '52998224725', payer_name: 'Ana', payer_street_and_number: 'Rua A, 1', payer_zip_code: '01310100', payer_city: 'Sao Paulo',
    payer_state: 'SP', payer_neighborhood: 'Centro', payer_phone_number: null, reference_code: null, pix: 0, overdue_allow: 0, overdue_date_limit: null,
    overdue_penalty_percent: 0, overdue_interest_percent: 0, status_bill: 2, status_integration: 2, failure_reason: null, our_number: '000000000000070',
    bar_code: '0'.repeat(44), digitable_line: '0'.repeat(47), pix_emv: null, registered_at: null, paid_at: null, payment_date: null, credit_date: null,
    paid_value: null, penalty_received: null, interest_received: null, canceled_at: null, cancellation_reason: null, canceled_by: null,
    created_at: '', updated_at: '', discounts: '[]', ...overrides,
  } as BankSlipRow;
}

const remit = (slip: BankSlipRow) =>
  buildRemittance({ bankCode: '001', bank: loadConfig({}).bankSlip, date: '2026-03-02', now: new Date('2026-03-02T21:30:05.000Z'), entries: [{ slip, guarantor: { name: 'Loja', document: '11222333000181' } }], cancellations: [] }).split('\r\n');

describe('remittance rules', () => {
  it('the bank writes a slip off at its dateLimit, or after the next business day when late payment is not allowed; past 999 days: never', () => {
    expect(writeOffTerms({ due_date: '2026-03-10', overdue_allow: 0, overdue_date_limit: null })).toEqual({ code: '1', days: '000' }); // a Tuesday
    expect(writeOffTerms({ due_date: '2026-03-14', overdue_allow: 0, overdue_date_limit: null })).toEqual({ code: '1', days: '002' }); // Saturday -> Monday
    expect(writeOffTerms({ due_date: '2026-03-10', overdue_allow: 1, overdue_date_limit: '2026-04-09' })).toEqual({ code: '1', days: '030' });
    expect(writeOffTerms({ due_date: '2026-03-10', overdue_allow: 1, overdue_date_limit: '2029-03-10' })).toEqual({ code: '2', days: '' });
  });

  it('percents go with 2 decimals, half up (FEBRABAN fields); the file header carries the generation date and time', () => {
    const lines = remit(slipRow({ overdue_allow: 1, overdue_date_limit: '2026-04-09', overdue_interest_percent: 12345, overdue_penalty_percent: 2_5050 }));
    expect(at(lines[2], 127, 141)).toBe('000000000000123'); // 1.2345 % -> 1.23 %
    expect(at(lines[4], 75, 89)).toBe('000000000000251'); // 2.505 % -> 2.51 %
    expect(at(lines[0], 144, 157)).toBe('02032026213005');
    expect(at(lines[0], 158, 163)).toBe(String(Date.parse('2026-03-02') / 864e5).padStart(6, '0')); // NSA: the day's number
  });

  it('an amount that does not fit its field is an error, never a truncated instruction', () => {
    expect(() => remit(slipRow({ value: 10 ** 15 }))).toThrow(RangeError);
  });
});

describe('remittances of any size', () => {
  it('more than 33,333 slips: several batches, a title never split, each batch numbered with its own sequence and trailer, the file trailer counting all', () => {
    const titles = 40_000;
    const entries = Array.from({ length: titles }, (_, i) => ({ slip: slipRow({ seq: i + 1, value: 100 + i, our_number: String(i + 1).padStart(15, '0') }), guarantor: { name: 'Loja', document: '11222333000181' } }));
    const cancellations = [slipRow({ our_number: '999999999999999', value: 5 })];
    const text = buildRemittance({ bankCode: '001', bank: loadConfig({}).bankSlip, date: '2026-03-02', now: new Date('2026-03-02T21:30:05.000Z'), entries, cancellations });
    const lines = text.slice(0, -2).split('\r\n');
    for (const line of [lines[0], lines[1], lines[lines.length - 1]]) expect(line).toHaveLength(240);
    // Read back with FEBRABAN's positions: record type 8, batch 4-7, sequence 9-13, segment 14.
    type Batch = { number: number; details: string[]; trailer: string };
    const batches: Batch[] = [];
    for (const line of lines.slice(1, -1)) {
      const type = at(line, 8, 8);
      if (type === '1') batches.push({ number: Number(at(line, 4, 7)), details: [], trailer: '' });
      else if (type === '3') batches[batches.length - 1].details.push(line);
      else if (type === '5') batches[batches.length - 1].trailer = line;
      else throw new Error(`unexpected record type ${type}`);
    }
    expect(batches.map((b) => b.number)).toEqual([1, 2]);
    expect(batches.map((b) => b.details.length)).toEqual([99_999, 3 * (titles - 33_333) + 1]);
    let value = 0;
    for (const batch of batches) {
      const misnumbered = batch.details.filter((line, i) => Number(at(line, 4, 7)) !== batch.number || Number(at(line, 9, 13)) !== i + 1 || line.length !== 240);
      expect(misnumbered).toEqual([]);
      // P, Q, R of one slip together: every P of an entry is followed by its Q and R in the same batch.
      const segments = batch.details.map((line) => at(line, 14, 14) + at(line, 16, 17)).join(',');
      expect(segments.replace(/P01,Q01,R01,?/g, '').replace(/P02,?/g, '')).toBe('');
      const entriesHere = batch.details.filter((line) => at(line, 14, 17) === 'P 01');
      const total = entriesHere.reduce((sum, line) => sum + Number(at(line, 86, 100)), 0);
      value += total;
      expect(Number(at(batch.trailer, 4, 7))).toBe(batch.number);
      expect(Number(at(batch.trailer, 18, 23))).toBe(batch.details.length + 2);
      expect(Number(at(batch.trailer, 24, 29))).toBe(entriesHere.length);
      expect(Number(at(batch.trailer, 30, 46))).toBe(total);
    }
    expect(value).toBe(Array.from({ length: titles }, (_, i) => 100 + i).reduce((a, b) => a + b, 0));
    expect(at(batches[1].details[batches[1].details.length - 1], 14, 17)).toBe('P 02');
    const trailer = lines[lines.length - 1];
    expect(at(trailer, 8, 8)).toBe('9');
    expect(Number(at(trailer, 18, 23))).toBe(2);
    expect(Number(at(trailer, 24, 29))).toBe(lines.length);
  });

  it('discounts: the first in segment P (142-165), the second and third in segment R (18-41, 42-65); code 1 fixed, 2 percent, 0 none', () => {
    const discounts = JSON.stringify([
      { type: 'percent', value: '500', until: '2026-03-03', amountCents: '50' },
      { type: 'fixed', value: '30', until: '2026-03-05', amountCents: '30' },
      { type: 'fixed', value: '10', until: '2026-03-10', amountCents: '10' },
    ]);
    const lines = remit(slipRow({ discounts }));
    expect([at(lines[2], 142, 142), at(lines[2], 143, 150), at(lines[2], 151, 165)]).toEqual(['2', '03032026', '000000000000500']); // 5.00 %
    expect([at(lines[4], 18, 18), at(lines[4], 19, 26), at(lines[4], 27, 41)]).toEqual(['1', '05032026', '000000000000030']);
    expect([at(lines[4], 42, 42), at(lines[4], 43, 50), at(lines[4], 51, 65)]).toEqual(['1', '10032026', '000000000000010']);
    const none = remit(slipRow());
    expect([at(none[2], 142, 142), at(none[4], 18, 18), at(none[4], 42, 42)]).toEqual(['0', '0', '0']);
  });
});
