import { addDays, daysBetween, isIsoDate } from '../../domain/calendar.js';
import { isValidCpfOrCnpj } from '../../domain/documents.js';
import { BANK_SLIP_VALUE, parseDecimal, PRICING_PERCENT, type DecimalError } from '../../domain/money.js';
import { invalid, type ErrorItem } from '../../domain/errors.js';
import type { IssueBody } from './schemas.js';
import { parseDiscounts, type SlipDiscount } from './discounts.js';

/**
 * How far ahead a due date may be. The barcode's due-date factor repeats every 9000 days and is
 * read back as the candidate closest to today, so a date more than ~12 years out would be read
 * as a past one; ten years keeps every slip unambiguous.
 */
export const MAX_DUE_DAYS = 3650;
/** Bank slip listings answer at most this many days at once (as the conciliation searches do). */
export const MAX_RANGE_DAYS = 90;

export interface IssueInput {
  valueCents: bigint;
  dueDate: string;
  payer: Required<Omit<IssueBody['payer'], 'phoneNumber'>> & { phoneNumber: string | null };
  referenceCode: string | null;
  pix: boolean;
  overdue: { allow: boolean; dateLimit: string | null; penaltyPercent: bigint; interestPercentPerMonth: bigint };
  discounts: SlipDiscount[];
}

const VALUE_PROBLEMS: Record<DecimalError, string> = {
  not_a_number: 'value must be a number.',
  too_many_decimals: 'value must have at most 2 decimals.',
  too_many_integer_digits: 'value must be at most 99999999.99 (the barcode holds 10 digits of cents).',
  out_of_range: 'value must be greater than 0 and at most 99999999.99.',
  imprecise_number: 'value has more digits than a JSON number carries exactly.',
};

/**
 * The issue rules a JSON schema cannot say (contract section 10): payer CPF/CNPJ check digits,
 * value with 2 decimals, due date not in the past, overdue terms that agree with each other.
 * Every problem in one 400, each tagged with its field path. `alphanumericCnpj`: whether the
 * configured bank's layout carries the alphanumeric CNPJ (src/domain/cnab240-banks.ts); if not,
 * such a payer is refused here rather than breaking the day's files later.
 */
export function checkIssueRules(body: IssueBody, today: string, alphanumericCnpj = true): IssueInput {
  const errors: ErrorItem[] = [];
  const problem = (tag: string, description: string) => errors.push({ tag, description });

  const value = parseDecimal(body.value, BANK_SLIP_VALUE);
  if (!value.ok) problem('value', VALUE_PROBLEMS[value.error]);

  if (!isIsoDate(body.dueDate)) problem('dueDate', 'dueDate must be a date YYYY-MM-DD.');
  else if (body.dueDate < today) problem('dueDate', `dueDate must not be in the past (today is ${today}).`);
  else if (daysBetween(today, body.dueDate) > MAX_DUE_DAYS) problem('dueDate', `dueDate must be within ${MAX_DUE_DAYS} days (${addDays(today, MAX_DUE_DAYS)}).`);

  const { payer } = body;
  if (!isValidCpfOrCnpj(payer.document)) problem('payer.document', 'payer.document must be a valid CPF or CNPJ, digits only (no mask).');
  else if (!alphanumericCnpj && /[A-Z]/.test(payer.document)) {
    problem('payer.document', "payer.document is an alphanumeric CNPJ, which the configured bank's CNAB layout cannot carry yet.");
  }
  for (const field of ['name', 'streetAndNumber', 'city', 'neighborhood'] as const) {
    if (payer[field].trim() === '') problem(`payer.${field}`, `payer.${field} must not be blank.`);
  }

  const overdue = checkOverdue(body, problem);
  const discounts = parseDiscounts(body.discount, { valueCents: value.ok ? value.value : null, dueDate: body.dueDate, today }, problem);
  // A bolecode's Pix asks the same amount as the slip: the API Pix writes interest with 2 decimals.
  if (body.pix && overdue.interestPercentPerMonth % 100n !== 0n) {
    problem('overdue.interestPercentPerMonth', 'A slip with pix carries its interest to its Pix charge, which takes at most 2 decimals.');
  }
  if (errors.length) throw invalid(errors);
  return {
    valueCents: (value as { value: bigint }).value,
    dueDate: body.dueDate,
    payer: { ...payer, phoneNumber: payer.phoneNumber ?? null },
    referenceCode: body.referenceCode ?? null,
    pix: body.pix ?? false,
    overdue,
    discounts,
  };
}

function checkOverdue(body: IssueBody, problem: (tag: string, description: string) => void): IssueInput['overdue'] {
  const o = body.overdue;
  const none = { allow: false, dateLimit: null, penaltyPercent: 0n, interestPercentPerMonth: 0n };
  if (!o) return none;
  const percent = (field: 'penaltyPercent' | 'interestPercentPerMonth'): bigint => {
    if (o[field] === undefined) return 0n;
    const parsed = parseDecimal(o[field], PRICING_PERCENT);
    if (parsed.ok) return parsed.value;
    problem(`overdue.${field}`, `overdue.${field} must be 0 to 100 with at most 4 decimals.`);
    return 0n;
  };
  const penaltyPercent = percent('penaltyPercent');
  const interestPercentPerMonth = percent('interestPercentPerMonth');
  if (!o.allow) {
    // Terms for a late payment that can never happen contradict allow: false.
    for (const field of ['dateLimit', 'penaltyPercent', 'interestPercentPerMonth'] as const) {
      const sent = o[field];
      if (sent !== undefined && sent !== 0) problem(`overdue.${field}`, `overdue.${field} applies only when overdue.allow is true.`);
    }
    return none;
  }
  if (o.dateLimit === undefined) problem('overdue.dateLimit', 'overdue.dateLimit is required when overdue.allow is true.');
  else if (!isIsoDate(o.dateLimit)) problem('overdue.dateLimit', 'overdue.dateLimit must be a date YYYY-MM-DD.');
  else if (isIsoDate(body.dueDate) && o.dateLimit <= body.dueDate) problem('overdue.dateLimit', 'overdue.dateLimit must be after dueDate.');
  return { allow: true, dateLimit: o.dateLimit ?? null, penaltyPercent, interestPercentPerMonth };
}

/** A listing's inclusive date range: start <= end, at most MAX_RANGE_DAYS apart. */
export function checkRange(startDate: string, endDate: string): void {
  if (endDate < startDate) throw invalid('query.endDate', 'endDate must not be before startDate.');
  if (daysBetween(startDate, endDate) > MAX_RANGE_DAYS) {
    throw invalid('query.endDate', `The range must span at most ${MAX_RANGE_DAYS} days.`);
  }
}

const DATE_OR_DATETIME = /^(\d{4}-\d{2}-\d{2})(?:[T ]([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,9})?)?(Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?)?$/i;

/**
 * A credit-date bound: a date, or an ISO 8601 datetime that counts as the calendar date it
 * names (`2026-03-01T22:00:00-03:00` is 2026-03-01: the caller means that day wherever it is).
 */
export function dateBound(value: string, tag: string): string {
  const m = DATE_OR_DATETIME.exec(value.trim());
  if (m === null || !isIsoDate(m[1])) {
    throw invalid(tag, `${tag} must be a date YYYY-MM-DD or an ISO 8601 datetime.`);
  }
  return m[1];
}
