import type { Selectable } from 'kysely';
import type { ReceivablesTable } from '../../db/schema.js';
import { splitBase, splitShare } from '../../domain/split.js';
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

/** Split amounts per installment: base = installment value (bruto) or received value (liquido); the rule: src/domain/split.ts. */
function splitsOf(row: Pick<ReceivableRow, 'splits' | 'installment_value' | 'received_value'>) {
  const config = JSON.parse(row.splits!) as SplitConfig[];
  const bases = { gross: BigInt(row.installment_value), net: BigInt(row.received_value) };
  return config.map((s) => {
    const base = splitBase(s.tipoSplit, bases);
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

/**
 * Compiled serializers of the two range-search records (issue 16): the same bytes as the
 * route's fast-json-stringify serializer gave for installmentRecord / summaryRecord (same keys
 * in schema order, numbers as `String(v / 10_000)`, strings through JSON.stringify), without
 * building an object per row. Checked byte for byte by test/settlement/conciliation-stream.test.ts.
 */
const str = JSON.stringify;
const strOrNull = (v: string | null): string => (v === null ? 'null' : str(v));
const dateTimeOrNull = (date: string | null): string => (date === null ? 'null' : `"${date}T00:00:00.000Z"`);

/** Columns an installment record needs (plus the keyset's transaction_at, installment_number, id). */
export const INSTALLMENT_COLUMNS = [
  'id', 'transaction_at', 'terminal', 'card_number', 'card_type', 'card_name', 'cod_auth', 'nsu', 'installment_number', 'installments_count',
  'installment_value', 'transaction_total_value', 'installment_status', 'mdr_value', 'mdr_tax', 'trn_fee_installment', 'trn_fee_transaction',
  'af_fee_installment', 'af_fee_transaction', 'prepayment_value', 'prepayment_tax', 'received_value', 'expected_date', 'effective_date',
  'received_type', 'received_status', 'reference', 'source_id', 'splits',
] as const;
export type InstallmentColumns = Pick<ReceivableRow, (typeof INSTALLMENT_COLUMNS)[number]>;

/** Columns a summary record needs (plus the keyset's). */
export const SUMMARY_COLUMNS = [
  'id', 'transaction_at', 'installment_number', 'terminal', 'card_number', 'card_type', 'card_name', 'nsu', 'cod_auth', 'installments_count',
  'transaction_total_value', 'installment_status', 'reference', 'source_id',
] as const;
export type SummaryColumns = Pick<ReceivableRow, (typeof SUMMARY_COLUMNS)[number]>;

export function installmentJson(r: InstallmentColumns): string {
  return (
    `{"transactionDate":${str(r.transaction_at)},"terminal":${str(r.terminal)},"cardNumber":${strOrNull(r.card_number)},` +
    `"cardType":${str(r.card_type)},"cardName":${str(r.card_name)},"codAuth":${str(r.cod_auth)},"nsu":${str(r.nsu)},` +
    `"installmentNumber":${r.installment_number},"installmentsCount":${r.installments_count},` +
    `"installmentValue":${r.installment_value / 10_000},"transactionTotalValue":${r.transaction_total_value / 10_000},` +
    `"installmentStatus":${str(r.installment_status)},"discountMdrValue":${r.mdr_value / 10_000},"discountMdrTax":${r.mdr_tax / 10_000},` +
    `"discountTrnRateInstalmentValue":${r.trn_fee_installment / 10_000},"discountTrnRateTransactionValue":${r.trn_fee_transaction / 10_000},` +
    `"discountAntifraudRateInstalmentValue":${r.af_fee_installment / 10_000},"discountAntifraudRateTransactionValue":${r.af_fee_transaction / 10_000},` +
    `"discountAntecipationValue":${r.prepayment_value / 10_000},"discountAntecipationTax":${r.prepayment_tax / 10_000},` +
    `"receivedValue":${r.received_value / 10_000},"receivedDateForeast":${dateTimeOrNull(r.expected_date)},` +
    `"receivedDateEffective":${dateTimeOrNull(r.effective_date)},"receivedType":${str(r.received_type)},"receivedStatus":${str(r.received_status)},` +
    `"transactionReference":${strOrNull(r.reference)},"transactionPaymentIdWeb":${str(r.source_id)}` +
    (r.splits === null ? '}' : `,"splits":${str(splitsOf(r))}}`)
  );
}

export function summaryJson(r: SummaryColumns): string {
  return (
    `{"transactionDate":${str(r.transaction_at)},"terminal":${str(r.terminal)},"cardNumber":${strOrNull(r.card_number)},` +
    `"cardType":${str(r.card_type)},"cardName":${str(r.card_name)},"nsu":${str(r.nsu)},"codAuth":${str(r.cod_auth)},` +
    `"installments":${r.installments_count},"amount":${r.transaction_total_value / 10_000},"transactionStatus":${str(r.installment_status)},` +
    `"transactionReference":${strOrNull(r.reference)},"transactionPaymentIdWeb":${str(r.source_id)}}`
  );
}
