import type { Insertable } from 'kysely';
import type { Executor } from '../../src/db/connection.js';
import type { BankSlipsTable } from '../../src/db/schema.js';
import type { BankSlipStatus } from '../../src/domain/lifecycles.js';

const UNPAID: readonly BankSlipStatus[] = [2, 9, 99];

/**
 * A fixed data set of bank slip rows (no randomness: the same bytes on every run), inserted
 * directly. Dates are in 2030-01 so that any window of that month holds them; many slips share a
 * date so that keyset pages end in the middle of a date; strings need JSON escaping; amounts and
 * percents cover integers, decimals and large values; some columns are null.
 */
export const FIXTURE_START = '2030-01-01';
export const FIXTURE_END = '2030-01-31';

export function fixtureRows(accountNumber: number, merchantId: string, count = 300, idPrefix = 'fx'): Insertable<BankSlipsTable>[] {
  const rows: Insertable<BankSlipsTable>[] = [];
  const names = ['Maria da Silva', 'Zé "Aspas" \\ Ção', 'Tab\there\nnewline', 'Ünïcødé 😀 </script>', "O'Brien"];
  for (let i = 0; i < count; i++) {
    const day = String(1 + ((i * 7) % 28)).padStart(2, '0');
    const due = `2030-01-${day}`;
    const paid = i % 3 !== 2;
    const payDay = String(1 + ((i * 5) % 27)).padStart(2, '0');
    const payment = paid ? `2030-01-${payDay}` : null;
    const credit = paid ? `2030-01-${String(Math.min(31, Number(payDay) + 1 + (i % 2))).padStart(2, '0')}` : null;
    const value = [100, 1050, 15075, 99999999999, 1, 123456][i % 6] + i;
    rows.push({
      id: `${idPrefix}-${String(i).padStart(6, '0')}`,
      merchant_id: merchantId,
      account_number: accountNumber,
      value,
      issue_date: '2029-12-15',
      due_date: due,
      payer_document: '52998224725',
      payer_name: `${names[i % names.length]} ${i}`,
      payer_street_and_number: `Rua ${i}, 100`,
      payer_zip_code: '01310100',
      payer_city: 'São Paulo',
      payer_state: 'SP',
      payer_neighborhood: 'Centro',
      payer_phone_number: i % 4 === 0 ? null : '11999990000',
      reference_code: i % 5 === 0 ? null : `ref-${i}`,
      pix: i % 2,
      overdue_allow: i % 2,
      overdue_date_limit: i % 2 ? '2030-02-15' : null,
      overdue_penalty_percent: [0, 20000, 12345, 1000000][i % 4],
      overdue_interest_percent: [0, 10000, 3333, 1][i % 4],
      status_bill: paid ? 3 : UNPAID[i % 3],
      status_integration: i % 7 === 0 ? 99 : 2,
      failure_reason: null,
      our_number: `${idPrefix}${String(accountNumber)}${String(i).padStart(8, '0')}`,
      bar_code: i % 11 === 0 ? null : `0019${String(i).padStart(40, '0')}`,
      digitable_line: i % 11 === 0 ? null : `00190.00009 ${String(i).padStart(10, '0')}`,
      pix_emv: i % 2 ? `00020126580014br.gov.bcb.pix${i}` : null,
      registered_at: '2029-12-15T10:00:00.000Z',
      paid_at: paid ? `${payment}T12:00:00.000Z` : null,
      payment_date: payment,
      credit_date: credit,
      paid_value: paid ? value + (i % 9) * 3 : null,
      penalty_received: paid && i % 2 ? (i % 13) * 10 : null,
      interest_received: paid && i % 2 ? i % 17 : null,
      canceled_at: null,
      cancellation_reason: null,
      created_at: '2029-12-15T10:00:00.000Z',
      updated_at: '2029-12-15T10:00:00.000Z',
    });
  }
  return rows;
}

/** Inserts rows in one transaction, 500 per statement (~20k parameters: below both engines' limits). */
export async function insertRows(db: Executor, rows: Insertable<BankSlipsTable>[]): Promise<void> {
  const insert = async (trx: Executor) => {
    for (let i = 0; i < rows.length; i += 500) await trx.insertInto('bankslips').values(rows.slice(i, i + 500)).execute();
  };
  await ('transaction' in db ? db.transaction().execute(insert) : insert(db));
}
