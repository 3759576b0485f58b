import type { Dialect } from '../../db/connection.js';
import { toJsonNumber } from '../../domain/money.js';
import { PERCENT_DECIMALS } from '../../domain/late-payment.js';
import { STATUS, type BankSlipRow } from './row.js';
import { discountView } from './discounts.js';
import type { BankSlipCreditRecord, BankSlipDetail, BankSlipListRecord } from './schemas.js';

/**
 * The seed's records, each declared once as fields (JSON key, column, how the column becomes a
 * JSON value). The detail record is rendered from them in JS; the listings render the same
 * fields in SQL (`sqlJsonObject`), so that a 31-day window of thousands of slips is written as
 * JSON by the database instead of being read column by column into objects and serialized again
 * (several times faster). test/bankslips/listings.test.ts checks the two agree.
 */
export type Kind = 'plain' | 'cents' | 'percent' | 'bool' | 'dayStart';
export type Field<K extends string = string> = readonly [key: K, column: keyof BankSlipRow, kind: Kind];

export const LIST_FIELDS: readonly Field<keyof BankSlipListRecord>[] = [
  ['id', 'id', 'plain'],
  ['value', 'value', 'cents'],
  ['issueDate', 'issue_date', 'plain'],
  ['dueDate', 'due_date', 'plain'],
  ['payerDocument', 'payer_document', 'plain'],
  ['payerName', 'payer_name', 'plain'],
  ['payerStreetAndNumber', 'payer_street_and_number', 'plain'],
  ['payerZipCode', 'payer_zip_code', 'plain'],
  ['payerCity', 'payer_city', 'plain'],
  ['payerCityState', 'payer_state', 'plain'],
  ['payerNeighborhood', 'payer_neighborhood', 'plain'],
  ['payerPhoneNumber', 'payer_phone_number', 'plain'],
  ['effectivePaymentDate', 'payment_date', 'plain'],
  ['effectiveCreditDate', 'credit_date', 'plain'],
  ['effectivePaymentValue', 'paid_value', 'cents'],
  ['barCode', 'bar_code', 'plain'],
  ['digitableLine', 'digitable_line', 'plain'],
  ['pixEmv', 'pix_emv', 'plain'],
  ['statusBill', 'status_bill', 'plain'],
  ['statusIntegration', 'status_integration', 'plain'],
];

const pascal = (key: string) => key[0].toUpperCase() + key.slice(1);

/** The by-credit-date record: the list fields in PascalCase without phone and statusIntegration, plus the overdue fields. */
export const CREDIT_FIELDS: readonly Field<keyof BankSlipCreditRecord>[] = [
  ...LIST_FIELDS.filter(([key]) => key !== 'payerPhoneNumber' && key !== 'statusIntegration').map(
    ([key, column, kind]) => [pascal(key) as keyof BankSlipCreditRecord, column, kind] as const,
  ),
  ['OurNumber', 'our_number', 'plain'],
  ['OverduePaymentAllow', 'overdue_allow', 'bool'],
  // A datetime field for a day: that day at 00:00 UTC, as a date-only DateTime serializes.
  ['OverduePaymentDateLimit', 'overdue_date_limit', 'dayStart'],
  ['OverduePaymentPenalty', 'overdue_penalty_percent', 'percent'],
  ['OverduePenaltyReceived', 'penalty_received', 'cents'],
  ['OverduePaymentInterest', 'overdue_interest_percent', 'percent'],
  ['OverdueInterestReceived', 'interest_received', 'cents'],
  ['CancelDate', 'canceled_at', 'plain'],
  ['CancellationReason', 'cancellation_reason', 'plain'],
  ['ReferenceCode', 'reference_code', 'plain'],
];

function jsValue(value: unknown, kind: Kind): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'cents':
      return toJsonNumber(BigInt(value as number), 2);
    case 'percent':
      return toJsonNumber(BigInt(value as number), PERCENT_DECIMALS);
    case 'bool':
      return value === 1;
    case 'dayStart':
      return `${value as string}T00:00:00.000Z`;
    default:
      return value;
  }
}

export function render<K extends string>(row: Partial<BankSlipRow>, fields: readonly Field<K>[]): Record<K, unknown> {
  const record = {} as Record<K, unknown>;
  for (const [key, column, kind] of fields) record[key] = jsValue(row[column], kind);
  return record;
}

/**
 * Exact decimals leave the database as JSON numbers through a double, as `toJsonNumber` does in
 * JS: values of at most 15 significant digits (every 11,2 amount and 4-decimal percent) print
 * as the decimal they are. SQLite would print 150 as 150.0; `%.15g` prints it as JS does.
 */
function sqlDecimal(column: string, divisor: string, dialect: Dialect): string {
  if (dialect === 'postgres') return `(${column} / ${divisor})::float8`;
  return `iif(${column} is null, null, json(printf('%.15g', ${column} / ${divisor})))`;
}

/** The same value in SQL. */
function sqlValue(column: string, kind: Kind, dialect: Dialect): string {
  const pg = dialect === 'postgres';
  switch (kind) {
    case 'cents':
      return sqlDecimal(column, '100.0', dialect);
    case 'percent':
      return sqlDecimal(column, '10000.0', dialect);
    case 'bool':
      return pg ? `(${column} = 1)` : `json(case when ${column} = 1 then 'true' else 'false' end)`;
    case 'dayStart':
      return `${column} || 'T00:00:00.000Z'`;
    default:
      return column;
  }
}

/** A SQL expression that writes one row as the JSON object of `fields` (static text: keys and columns are ours). */
export function sqlJsonObject(fields: readonly Field[], dialect: Dialect): string {
  const pairs = fields.map(([key, column, kind]) => `'${key}', ${sqlValue(column, kind, dialect)}`).join(', ');
  // json_build_object (not jsonb) keeps the keys in this order.
  return dialect === 'postgres' ? `json_build_object(${pairs})::text` : `json_object(${pairs})`;
}

export const toListRecord = (row: Partial<BankSlipRow>) => render(row, LIST_FIELDS) as BankSlipListRecord;
export const toCreditRecord = (row: Partial<BankSlipRow>) => render(row, CREDIT_FIELDS) as BankSlipCreditRecord;

/** The detail record's `status` has no overdue code: an overdue slip is still issued, and payable. */
function detailStatus(statusBill: number): number {
  return statusBill === STATUS.overdue ? STATUS.issued : statusBill;
}

export function toDetail(r: BankSlipRow): BankSlipDetail {
  const { statusBill, statusIntegration, ...fields } = toListRecord(r);
  const credit = toCreditRecord(r);
  return {
    ...fields,
    status: detailStatus(statusBill),
    success: true,
    message: r.failure_reason,
    statusBill,
    statusIntegration,
    ourNumber: r.our_number,
    referenceCode: r.reference_code,
    overdue: {
      allow: credit.OverduePaymentAllow,
      dateLimit: r.overdue_date_limit,
      penaltyPercent: credit.OverduePaymentPenalty,
      interestPercentPerMonth: credit.OverduePaymentInterest,
    },
    overduePenaltyReceived: credit.OverduePenaltyReceived,
    overdueInterestReceived: credit.OverdueInterestReceived,
    discount: discountView(r),
    CancelDate: credit.CancelDate,
    CancellationReason: credit.CancellationReason,
  };
}
