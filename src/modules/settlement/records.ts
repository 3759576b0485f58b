import type { Selectable } from 'kysely';
import type { ReceivablesTable } from '../../db/schema.js';
import { splitShare } from '../../domain/fees.js';
import { toJsonNumber } from '../../domain/money.js';
import type { SplitConfig } from './receivables.js';

export type ReceivableRow = Selectable<ReceivablesTable>;

/**
 * A 10,4 value stored in ten-thousandths, as the exact JSON number: the same float as
 * `toJsonNumber(v, 4)`, without building a string per field (searches map ~85k rows). IEEE 754
 * division is correctly rounded, so v / 10000 of two exact integers (|v| < 2^53) is the float
 * nearest to the decimal v/10^4, which is exactly what parsing its decimal text gives.
 */
export const d4 = (v: number): number => v / 10_000;
/** Date fields are datetimes in the seed: midnight UTC of the date. */
const dateTime = (date: string | null): string | null => (date === null ? null : `${date}T00:00:00.000Z`);

/** Split amounts per installment: base = installment value (bruto) or received value (liquido). */
function splitsOf(row: ReceivableRow) {
  const config = JSON.parse(row.splits!) as SplitConfig[];
  return config.map((s) => {
    const base = BigInt(s.tipoSplit === 'bruto' ? row.installment_value : row.received_value);
    return {
      beneficiario: s.beneficiario,
      tipoSplit: s.tipoSplit,
      pctSplit: toJsonNumber(BigInt(s.pct), 2),
      valorBaseSplit: d4(Number(base)),
      valorSplit: d4(Number(splitShare(base, BigInt(s.pct)))),
    };
  });
}

/** The seed's conciliation installment record; `splits` only when a split is configured. */
export function installmentRecord(row: ReceivableRow) {
  return {
    transactionDate: row.transaction_at,
    terminal: row.terminal,
    cardNumber: row.card_number,
    cardType: row.card_type,
    cardName: row.card_name,
    codAuth: row.cod_auth,
    nsu: row.nsu,
    installmentNumber: row.installment_number,
    installmentsCount: row.installments_count,
    installmentValue: d4(row.installment_value),
    transactionTotalValue: d4(row.transaction_total_value),
    installmentStatus: row.installment_status,
    discountMdrValue: d4(row.mdr_value),
    discountMdrTax: d4(row.mdr_tax),
    discountTrnRateInstalmentValue: d4(row.trn_fee_installment),
    discountTrnRateTransactionValue: d4(row.trn_fee_transaction),
    discountAntifraudRateInstalmentValue: d4(row.af_fee_installment),
    discountAntifraudRateTransactionValue: d4(row.af_fee_transaction),
    discountAntecipationValue: d4(row.prepayment_value),
    discountAntecipationTax: d4(row.prepayment_tax),
    receivedValue: d4(row.received_value),
    receivedDateForeast: dateTime(row.expected_date)!,
    receivedDateEffective: dateTime(row.effective_date),
    receivedType: row.received_type,
    receivedStatus: row.received_status,
    transactionReference: row.reference,
    transactionPaymentIdWeb: row.source_id,
    ...(row.splits === null ? {} : { splits: splitsOf(row) }),
  };
}

/** The seed's summary record, built from installment 1 (every sale has one). */
export function summaryRecord(row: ReceivableRow) {
  return {
    transactionDate: row.transaction_at,
    terminal: row.terminal,
    cardNumber: row.card_number,
    cardType: row.card_type,
    cardName: row.card_name,
    nsu: row.nsu,
    codAuth: row.cod_auth,
    installments: row.installments_count,
    amount: d4(row.transaction_total_value),
    transactionStatus: row.installment_status,
    transactionReference: row.reference,
    transactionPaymentIdWeb: row.source_id,
  };
}
