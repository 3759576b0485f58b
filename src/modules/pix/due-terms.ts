import { brasiliaDate, brasiliaStart } from '../../domain/brasilia.js';
import { addDays, isIsoDate } from '../../domain/calendar.js';
import { isValidCpfOrCnpj } from '../../domain/documents.js';
import { lastPayableDay, PERCENT_DECIMALS, settlementOn, type EarlyDiscount, type OverdueTerms, type Settlement } from '../../domain/late-payment.js';
import { formatFixed, parseDecimal, type DecimalSpec } from '../../domain/money.js';
import { invalid, type ErrorItem } from '../../domain/errors.js';
import type { NewProviderDueCharge } from '../../pix-provider/types.js';

/** The API Pix writes percents with two decimals (`valorPerc`); stored scaled by 10^4 like a slip's. */
const PIX_PERCENT: DecimalSpec = { integerDigits: 3, decimals: 2, max: 10_000n };
const TO_STORED = 10n ** BigInt(PERCENT_DECIMALS - PIX_PERCENT.decimals);
/** The API Pix's default `validadeAposVencimento`. */
export const DEFAULT_DAYS_AFTER_DUE = 30;

/** The request fields of a charge with a due date, as POST /v1/pix/charges takes them. */
export interface DueChargeFields {
  amount: number;
  expiresIn?: number;
  dueDate?: string;
  validAfterDueDays?: number;
  payer?: { documentNumber: string; name: string };
  fine?: number;
  interest?: number;
  discount?: { amount: number; until: string };
}

/** A charge's due date and terms in the columns both `pix_charges` and `pix_due_charges` hold. */
export interface DueTermsColumns {
  amount: number | string | bigint;
  due_date: string;
  days_after_due: number;
  penalty_percent: number | string | bigint;
  interest_percent: number | string | bigint;
  /** A charge's one discount (pix_charges)... */
  discount_amount?: number | string | bigint;
  discount_until?: string | null;
  /** ...or a slip's up to three (pix_due_charges), JSON `[{amountCents, until}]` with cents as strings. */
  discounts?: string;
}

export interface NewDueTerms {
  due_date: string;
  days_after_due: number;
  payer_document: string;
  payer_name: string;
  penalty_percent: number;
  interest_percent: number;
  discount_amount: number;
  discount_until: string | null;
}

/**
 * The due date and terms of a new charge, checked (every problem at once, each tagged with its
 * field), or null for an immediate charge. `today` is the sandbox's or the real date.
 */
export function dueTermsOf(body: DueChargeFields, today: string): NewDueTerms | null {
  const errors: ErrorItem[] = [];
  const fail = (tag: string, description: string) => errors.push({ tag, description });
  if (body.dueDate === undefined) {
    for (const field of ['validAfterDueDays', 'payer', 'fine', 'interest', 'discount'] as const) {
      if (body[field] !== undefined) fail(field, `${field} applies only to a charge with a dueDate.`);
    }
    if (errors.length) throw invalid(errors);
    return null;
  }
  if (!isIsoDate(body.dueDate)) fail('dueDate', 'dueDate must be a date (YYYY-MM-DD).');
  else if (body.dueDate < today) fail('dueDate', `dueDate must not be before today (${today}).`);
  if (body.expiresIn !== undefined) fail('expiresIn', 'A charge with a dueDate expires after its validAfterDueDays, not after expiresIn.');
  if (!body.payer) fail('payer', 'payer {documentNumber, name} is required with a dueDate.');
  else if (!isValidCpfOrCnpj(body.payer.documentNumber)) fail('payer.documentNumber', 'payer.documentNumber must be a valid CPF (11 digits) or CNPJ (14 characters).');
  const percent = (field: 'fine' | 'interest'): bigint => {
    if (body[field] === undefined) return 0n;
    const parsed = parseDecimal(body[field], PIX_PERCENT);
    if (parsed.ok) return parsed.value * TO_STORED;
    fail(field, `${field} must be a percent from 0 to 100 with at most 2 decimals.`);
    return 0n;
  };
  const penalty = percent('fine');
  const interest = percent('interest');
  const discount = body.discount;
  if (discount) {
    if (discount.amount >= body.amount) fail('discount.amount', 'discount.amount must be less than the amount.');
    if (!isIsoDate(discount.until)) fail('discount.until', 'discount.until must be a date (YYYY-MM-DD).');
    else if (isIsoDate(body.dueDate) && discount.until > body.dueDate) fail('discount.until', 'discount.until must not be after the dueDate.');
    else if (discount.until < today) fail('discount.until', `discount.until must not be before today (${today}).`);
  }
  if (errors.length) throw invalid(errors);
  return {
    due_date: body.dueDate,
    days_after_due: body.validAfterDueDays ?? DEFAULT_DAYS_AFTER_DUE,
    payer_document: body.payer!.documentNumber.toUpperCase(),
    payer_name: body.payer!.name,
    penalty_percent: Number(penalty),
    interest_percent: Number(interest),
    discount_amount: discount?.amount ?? 0,
    discount_until: discount?.until ?? null,
  };
}

/** A `pix_charges` row's due date and terms, or null for an immediate charge. */
export function dueColumnsOf<T extends Omit<DueTermsColumns, 'due_date' | 'days_after_due'> & { due_date: string | null; days_after_due: number | null }>(row: T): (T & DueTermsColumns) | null {
  return row.due_date === null ? null : { ...row, due_date: row.due_date, days_after_due: row.days_after_due ?? 0 };
}

/** The slip-like terms the amount due is computed with (domain/late-payment.ts). */
export function overdueTermsOf(row: DueTermsColumns): OverdueTerms {
  return {
    dueDate: row.due_date,
    allow: row.days_after_due > 0,
    dateLimit: lastPayableDay(row.due_date, row.days_after_due),
    penaltyPercent: BigInt(row.penalty_percent),
    interestPercentPerMonth: BigInt(row.interest_percent),
    discounts: discountsOf(row),
  };
}

/** The discounts of either table's row, by date. */
export function discountsOf(row: Pick<DueTermsColumns, 'discount_amount' | 'discount_until' | 'discounts'>): EarlyDiscount[] {
  if (row.discounts !== undefined) return (JSON.parse(row.discounts) as { amountCents: string; until: string }[]).map((d) => ({ amountCents: BigInt(d.amountCents), until: d.until }));
  return row.discount_until && BigInt(row.discount_amount ?? 0) > 0n ? [{ amountCents: BigInt(row.discount_amount ?? 0), until: row.discount_until }] : [];
}

/** Discounts as `pix_due_charges.discounts` keeps them. */
export const discountsJson = (discounts: readonly EarlyDiscount[]): string => JSON.stringify(discounts.map((d) => ({ amountCents: String(d.amountCents), until: d.until })));

/** What the payer owes on `date` (YYYY-MM-DD), or why the charge cannot be paid that day. */
export function amountDueOn(row: DueTermsColumns, date: string): Settlement {
  return settlementOn(BigInt(row.amount), overdueTermsOf(row), date);
}

/** The instant after the last day it can be paid (a Brasília day, as the PSP counts it): the expiry of a charge with a due date. */
export function dueExpiry(row: Pick<DueTermsColumns, 'due_date' | 'days_after_due'>): Date {
  return new Date(brasiliaStart(addDays(lastPayableDay(row.due_date, row.days_after_due), 1)));
}

/** The API Pix date of an instant (Brasília): the day a cobv is priced for and paid on. */
export const dayOf = (instant: Date | string): string => brasiliaDate(typeof instant === 'string' ? new Date(instant) : instant);

/** A stored percent (10^4) as the API shows it: 2.5 for 25000. */
export const percentNumber = (stored: number | string | bigint): number => Number(formatFixed(BigInt(stored), PERCENT_DECIMALS));

/** A charge with a due date as the PSP connector takes it (`PUT /cobv/{txid}`). */
export function providerDueCharge(txid: string, row: DueTermsColumns & { payer_document: string; payer_name: string }, description?: string): NewProviderDueCharge {
  const terms = overdueTermsOf(row);
  return {
    txid,
    amountCents: BigInt(row.amount),
    dueDate: row.due_date,
    daysAfterDue: row.days_after_due,
    payer: { document: row.payer_document, name: row.payer_name },
    penaltyPercent: terms.penaltyPercent,
    interestPercentPerMonth: terms.interestPercentPerMonth,
    discounts: [...(terms.discounts ?? [])],
    ...(description ? { description } : {}),
  };
}
