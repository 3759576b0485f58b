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
    created_at: '', updated_at: '', ...overrides,
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
