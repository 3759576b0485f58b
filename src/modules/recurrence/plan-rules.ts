import { parseDecimal, PLAN_AMOUNT, roundHalfUp, type DecimalError } from '../../domain/money.js';
import { invalid, type ErrorItem } from '../../domain/errors.js';
import { periodicityOf, WEEKLY_INTERVAL } from '../../domain/pix-automatico.js';

export const PLAN_TYPES = ['Monthly', 'Bimonthly', 'Quarterly', 'Semesterly', 'Yearly', 'Custom'] as const;
export type PlanType = (typeof PLAN_TYPES)[number];

/** Days between billings of the fixed types (contract section 8); they never end. */
export const FIXED_INTERVALS: Record<Exclude<PlanType, 'Custom'>, number> = {
  Monthly: 30,
  Bimonthly: 60,
  Quarterly: 90,
  Semesterly: 180,
  Yearly: 365,
};

/** The seeds disagree between "> 20" and "at least 20"; the contract accepts 20. */
export const MIN_CUSTOM_INTERVAL = 20;
/**
 * A billing is charged as a card payment, whose amount has at most 10 digits of cents: a plan
 * amount above that could be stored (12 integer digits) but never charged, so it is refused
 * at the door instead of failing every billing. It also keeps the scaled amount under 2^53.
 */
export const MAX_CHARGE_CENTS = 9_999_999_999n;

/** What the API sends for the shape of a plan (create and update alike). */
export interface PlanShapeInput {
  amount: number | string;
  planType: PlanType;
  trialDays?: number;
  interval?: number;
  /** Null = no end, as GET answers it (accepted on update only for fixed types). */
  installments?: number | null;
  attempts?: number;
  /** CreditCard or Pix (Pix Automático). */
  paymentMethod?: string;
}

/** The plan's stored terms, after the type rules. */
export interface PlanTerms {
  amount: bigint; // scaled by 10^6
  planType: PlanType;
  trialDays: number;
  intervalDays: number;
  /** Null: no end. */
  installments: number | null;
  attempts: number;
}

const AMOUNT_ERRORS: Record<DecimalError, string> = {
  not_a_number: 'amount must be a decimal number.',
  too_many_decimals: 'amount has at most 6 decimals.',
  too_many_integer_digits: 'amount has at most 12 integer digits.',
  out_of_range: 'amount must be positive.',
  imprecise_number: 'amount has more significant digits than a JSON number keeps exactly; send it as a string.',
};

/** The charge of one billing: the plan amount rounded half-up to cents. */
export function chargeCents(amount: bigint): bigint {
  return roundHalfUp(amount, PLAN_AMOUNT.decimals, 2);
}

/**
 * Applies the plan type rules (contract section 8) and answers every problem at once (400):
 * fixed types take interval and installments from the type and refuse them when sent; Custom
 * requires interval >= 20 and installments >= 1. `defaults` fills trialDays and attempts when
 * omitted (0 on create, the current values on update).
 */
export function planTerms(input: PlanShapeInput, defaults: { trialDays: number; attempts: number }, options: { update?: boolean } = {}): PlanTerms {
  const errors: ErrorItem[] = [];
  const parsed = parseDecimal(input.amount, PLAN_AMOUNT);
  let amount = 0n;
  if (!parsed.ok) errors.push({ tag: 'amount', description: AMOUNT_ERRORS[parsed.error] });
  else {
    amount = parsed.value;
    const cents = chargeCents(amount);
    if (cents < 1n || cents > MAX_CHARGE_CENTS) {
      errors.push({ tag: 'amount', description: 'amount, rounded to cents, must be between 0.01 and 99999999.99 (the card payment limits).' });
    }
  }
  let intervalDays = 0;
  let installments: number | null = null;
  // A Pix plan is a Pix Automático recurrence: its period must be one of the API Pix's.
  const pix = input.paymentMethod === 'Pix';
  if (pix && periodicityOf(input.planType, input.interval) === null) {
    errors.push({ tag: 'planType', description: 'A Pix plan is Monthly, Quarterly, Semesterly, Yearly or Custom with an interval of 7 days (weekly): the periods of Pix Automático.' });
  }
  const weeklyPix = pix && input.planType === 'Custom' && input.interval === WEEKLY_INTERVAL;
  if (input.planType === 'Custom') {
    if (input.interval === undefined) errors.push({ tag: 'interval', description: 'interval is required for a Custom plan (days, at least 20).' });
    else if (input.interval < MIN_CUSTOM_INTERVAL && !weeklyPix) errors.push({ tag: 'interval', description: `interval must be at least ${MIN_CUSTOM_INTERVAL} days.` });
    else intervalDays = input.interval;
    if (input.installments === undefined || input.installments === null) errors.push({ tag: 'installments', description: 'installments is required for a Custom plan (at least 1).' });
    else if (input.installments < 1) errors.push({ tag: 'installments', description: 'installments must be at least 1.' });
    else installments = input.installments;
  } else {
    intervalDays = FIXED_INTERVALS[input.planType];
    // An update accepts what GET answers (the type's own interval, installments null), so a plan
    // read back can be posted back; a create keeps the contract's "must not be sent" (section 8).
    if (input.interval !== undefined && !(options.update && input.interval === intervalDays)) {
      errors.push({ tag: 'interval', description: `interval must not be sent for a ${input.planType} plan: the plan type sets it (${intervalDays} days).` });
    }
    if (input.installments !== undefined && !(options.update && input.installments === null)) {
      errors.push({ tag: 'installments', description: `installments must not be sent for a ${input.planType} plan: it has no end (omit it or send null).` });
    }
  }
  if (errors.length > 0) throw invalid(errors);
  return {
    amount,
    planType: input.planType,
    trialDays: input.trialDays ?? defaults.trialDays,
    intervalDays,
    installments,
    attempts: input.attempts ?? defaults.attempts,
  };
}
