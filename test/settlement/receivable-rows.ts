import type { Insertable } from 'kysely';
import type { ReceivablesTable } from '../../src/db/schema.js';
import { DEFAULT_PRICING } from '../../src/domain/fees.js';
import { buildReceivables, type Sale } from '../../src/modules/settlement/receivables.js';

/** A fixed, varied data set: ties on transaction_at, splits, Pix (null card), null and odd references, received and prepaid rows. */
export function dataSet(account: number, merchantId: string, count: number): Insertable<ReceivablesTable>[] {
  const rows: Insertable<ReceivablesTable>[] = [];
  const references = [null, 'order-"quoted"', 'pedido-ção-\u2028-\\-/', 'order-plain', '\u0001ctl', 'tab\there\nline\r\b\f\v\u001f-😀'];
  for (let i = 0; rows.length < count; i++) {
    const pix = i % 7 === 3;
    const installments = pix ? 1 : (i % 12) + 1;
    // Four sales share each instant: the order falls to installment_number, then id.
    const at = new Date(Date.parse('2027-03-01T00:00:00.000Z') + Math.floor(i / 4) * Math.floor((997_000 * 5_200) / count)).toISOString();
    const sale: Sale = {
      sourceType: pix ? 'pix' : 'card', sourceId: `src-${i}`, merchantId, accountNumber: account, transactionAt: at,
      cardNumber: pix ? null : '4111*******1111', cardName: pix ? 'PIX' : 'VISA', codAuth: `A${String(i).padStart(5, '0')}`,
      nsu: String(900_000_000 + i), reference: references[i % references.length], amountCents: BigInt(101 + ((i * 7919) % 900_000)),
      installments, status: i % 11 === 5 ? 'B' : 'A',
      splits: i % 5 === 2 ? [{ beneficiario: '52998224725', tipoSplit: 'bruto', pct: 1000 }, { beneficiario: '11222333000181', tipoSplit: 'liquido', pct: 1250 }] : [],
    };
    for (const row of buildReceivables(sale, DEFAULT_PRICING)) {
      if (i % 9 === 4 && row.installment_number === 1) {
        // Received (and on some, prepaid) rows: effective dates and prepayment values.
        Object.assign(row, { received_status: 'P', effective_date: row.expected_date, receipt_date: row.expected_date });
        if (i % 2 === 0) Object.assign(row, { received_type: 'A', prepayment_value: 1234, prepayment_tax: 199 });
      }
      rows.push(row);
    }
  }
  return rows.slice(0, count);
}

