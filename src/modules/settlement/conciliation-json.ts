import type { Selectable } from 'kysely';
import type { ReceivablesTable } from '../../db/schema.js';
import { splitBase, splitShare } from '../../domain/split.js';
import { toJsonNumber } from '../../domain/money.js';
import { jsonString, scaledJsonText } from '../../domain/json-text.js';
import type { SplitConfig } from './receivables.js';

export type ReceivableRow = Selectable<ReceivablesTable>;

/**
 * A 10,4 value stored in ten-thousandths, as the exact JSON number: the same float as
 * `toJsonNumber(v, 4)`, without building a string per field (a range search maps tens of thousands
 * of rows). IEEE 754
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
 * Compiled serializers of the two range-search records: the same bytes as the
 * route's fast-json-stringify serializer gave for installmentRecord / summaryRecord (same keys
 * in schema order, numbers as `String(v / 10_000)`, strings as JSON.stringify writes them),
 * without building an object per row: each reads a row as the array of its columns, in the
 * order of INSTALLMENT_COLUMNS / SUMMARY_COLUMNS (the database hands rows over as arrays, which
 * halves the read; see repository.ts rangePage). Checked byte for byte by
 * test/settlement/conciliation-stream.test.ts against the old path.
 */

const str = jsonString;
const strOrNull = (v: string | null): string => (v === null ? 'null' : str(v));
const dateTimeOrNull = (date: string | null): string => (date === null ? 'null' : `"${date}T00:00:00.000Z"`);

/** The JSON text of a 10,4 value stored in ten-thousandths (an integer): see scaledJsonText. */
export const d4Text = (v: number): string => scaledJsonText(v, 4);

/** Columns an installment record needs (plus the keyset's id); installmentJson reads them by position. */
export const INSTALLMENT_COLUMNS = [
  'id', 'transaction_at', 'terminal', 'card_number', 'card_type', 'card_name', 'cod_auth', 'nsu', 'installment_number', 'installments_count',
  'installment_value', 'transaction_total_value', 'installment_status', 'mdr_value', 'mdr_tax', 'trn_fee_installment', 'trn_fee_transaction',
  'af_fee_installment', 'af_fee_transaction', 'prepayment_value', 'prepayment_tax', 'received_value', 'expected_date', 'effective_date',
  'received_type', 'received_status', 'reference', 'source_id', 'splits',
] as const;

/** Columns a summary record needs (plus the keyset's id and installment_number); summaryJson reads them by position. */
export const SUMMARY_COLUMNS = [
  'id', 'transaction_at', 'installment_number', 'terminal', 'card_number', 'card_type', 'card_name', 'nsu', 'cod_auth', 'installments_count',
  'transaction_total_value', 'installment_status', 'reference', 'source_id',
] as const;

/** A row read for a range search: its columns' values in the order of INSTALLMENT_COLUMNS or SUMMARY_COLUMNS. */
export type ColumnValues = any[];

/** Where the keyset's columns (transaction_at, installment_number, id) sit in each row shape. */
export const KEY_POSITIONS = {
  installment: { at: 1, n: 8, id: 0 },
  summary: { at: 1, n: 2, id: 0 },
} as const;

export function installmentJson(r: ColumnValues): string {
  return (
    '{"transactionDate":' + str(r[1]) + ',"terminal":' + str(r[2]) + ',"cardNumber":' + strOrNull(r[3]) + ',"cardType":' + str(r[4]) +
    ',"cardName":' + str(r[5]) + ',"codAuth":' + str(r[6]) + ',"nsu":' + str(r[7]) + ',"installmentNumber":' + r[8] +
    ',"installmentsCount":' + r[9] + ',"installmentValue":' + d4Text(r[10]) + ',"transactionTotalValue":' + d4Text(r[11]) +
    ',"installmentStatus":' + str(r[12]) + ',"discountMdrValue":' + d4Text(r[13]) + ',"discountMdrTax":' + d4Text(r[14]) +
    ',"discountTrnRateInstalmentValue":' + d4Text(r[15]) + ',"discountTrnRateTransactionValue":' + d4Text(r[16]) +
    ',"discountAntifraudRateInstalmentValue":' + d4Text(r[17]) + ',"discountAntifraudRateTransactionValue":' + d4Text(r[18]) +
    ',"discountAntecipationValue":' + d4Text(r[19]) + ',"discountAntecipationTax":' + d4Text(r[20]) + ',"receivedValue":' + d4Text(r[21]) +
    ',"receivedDateForeast":' + dateTimeOrNull(r[22]) + ',"receivedDateEffective":' + dateTimeOrNull(r[23]) + ',"receivedType":' + str(r[24]) +
    ',"receivedStatus":' + str(r[25]) + ',"transactionReference":' + strOrNull(r[26]) + ',"transactionPaymentIdWeb":' + str(r[27]) +
    (r[28] === null ? '}' : ',"splits":' + JSON.stringify(splitsOf({ splits: r[28], installment_value: r[10], received_value: r[21] })) + '}')
  );
}

export function summaryJson(r: ColumnValues): string {
  return (
    '{"transactionDate":' + str(r[1]) + ',"terminal":' + str(r[3]) + ',"cardNumber":' + strOrNull(r[4]) + ',"cardType":' + str(r[5]) +
    ',"cardName":' + str(r[6]) + ',"nsu":' + str(r[7]) + ',"codAuth":' + str(r[8]) + ',"installments":' + r[9] +
    ',"amount":' + d4Text(r[10]) + ',"transactionStatus":' + str(r[11]) + ',"transactionReference":' + strOrNull(r[12]) +
    ',"transactionPaymentIdWeb":' + str(r[13]) + '}'
  );
}
