import type { Selectable } from 'kysely';
import type { BillingsTable, PlansTable, SubscriptionsTable } from '../../db/schema.js';
import { PLAN_AMOUNT, toJsonNumber } from '../../domain/money.js';
import { COBR_EARLIEST_DAYS, COBR_LATEST_DAYS, MAX_RETRIES, periodicityOf, RETRY_OFFSET_DAYS, RETRY_POLICY, RETRY_WINDOW_DAYS } from '../../domain/pix-automatico.js';

export type PlanRow = Selectable<PlansTable>;
export type SubscriptionRow = Selectable<SubscriptionsTable>;
export type BillingRow = Selectable<BillingsTable>;

/** The API's resources (seed "Plan", "Subscription", "Billing"); see schemas.ts. */
export interface PlanView {
  id: string;
  merchantId: string;
  name: string;
  description: string;
  amount: number;
  planType: string;
  trialDays: number;
  paymentMethod: string;
  interval: number;
  installments: number | null;
  attempts: number;
  status: string;
  createdDate: string;
  createdBy: string | null;
  /** Pix plans: the Pix Automático rules they follow. */
  pix?: PixPlanRules;
}

export interface PixPlanRules {
  periodicity: string;
  retryPolicy: string;
  maxRetries: number;
  retryWindowDays: number;
  retryDays: number[];
  cobrWindowDays: { from: number; to: number };
}

/** A Pix subscription's authorization (the recurrence at the PSP). */
export interface PixAuthorizationView {
  recurrenceId: string;
  status: string;
  pixEmv: string;
  expiresAt: string;
  reason: string | null;
  canceledBy: string | null;
  payer: { documentNumber: string; name: string };
}

export interface SubscriptionView {
  id: string;
  vaultId: string | null;
  orderNumber: string;
  status: string;
  canceledReason?: string | null;
  pixAuthorization?: Omit<PixAuthorizationView, 'payer'>;
  payer?: { documentNumber: string; name: string };
  /** Extension, present while Blocked: why (the blocking charge's return message and code). */
  blockedReason?: string | null;
  blockedReturnCode?: string | null;
  plan: PlanView;
  createdBy: string | null;
  createdDate: string;
}

/** POST .../subscriptions: a card plan's vaultId, or a Pix plan's payer. */
export interface SubscribeBody {
  planId: string;
  /** A card plan's stored card. */
  vaultId?: string;
  orderNumber: string;
  /** A Pix plan's payer (Pix Automático): CPF or CNPJ and name. */
  payer?: { documentNumber: string; name: string };
}

export interface AttemptEntry {
  date: string;
  returnCode: string | null;
  returnMessage: string;
  paymentId: string | null;
  /** A declined attempt's category: retryable or final (ABECS Normativo 21). */
  declineCategory?: 'retryable' | 'final';
}

export interface BillingView {
  id: string;
  status: string;
  expireAt: string;
  amount: number;
  installment: number;
  subscription: SubscriptionView;
  createdBy: string | null;
  createdDate: string;
  modifiedBy: string | null;
  modifiedDate: string | null;
}

export interface BillingDetail extends BillingView {
  attemptsHistory: AttemptEntry[];
}

/** The plan's createdDate is the one datetime without zone (contract section 2): UTC wall time. */
export function withoutZone(iso: string): string {
  // Milliseconds kept, as in every other timestamp; only the zone is left out.
  return iso.replace(/Z$/, '');
}

export function toPlan(row: PlanRow): PlanView {
  return {
    id: row.plan_id,
    merchantId: row.merchant_id,
    name: row.name,
    description: row.description,
    amount: toJsonNumber(BigInt(row.amount), PLAN_AMOUNT.decimals),
    planType: row.plan_type,
    trialDays: row.trial_days,
    paymentMethod: row.payment_method,
    interval: row.interval_days,
    installments: row.installments,
    attempts: row.attempts,
    status: row.status,
    createdDate: withoutZone(row.created_at),
    createdBy: row.created_by,
    ...(row.payment_method === 'Pix' ? { pix: pixRulesOf(row) } : {}),
  };
}

/** What a Pix plan follows instead of `attempts`: the API Pix's periodicity, retry policy and cobr window. */
function pixRulesOf(row: PlanRow): PixPlanRules {
  return {
    periodicity: periodicityOf(row.plan_type, row.interval_days) ?? '',
    retryPolicy: RETRY_POLICY,
    maxRetries: MAX_RETRIES,
    retryWindowDays: RETRY_WINDOW_DAYS,
    retryDays: [...RETRY_OFFSET_DAYS],
    cobrWindowDays: { from: COBR_EARLIEST_DAYS, to: COBR_LATEST_DAYS },
  };
}

/** A Pix subscription has no stored card (its vault_id is empty). */
export const isPix = (row: Pick<SubscriptionRow, 'vault_id'>): boolean => row.vault_id === '';

export function toSubscription(row: SubscriptionRow, plan: PlanRow, pix?: PixAuthorizationView): SubscriptionView {
  const authorization = pix ? { recurrenceId: pix.recurrenceId, status: pix.status, pixEmv: pix.pixEmv, expiresAt: pix.expiresAt, reason: pix.reason, canceledBy: pix.canceledBy } : undefined;
  return {
    id: row.subscription_id,
    vaultId: isPix(row) ? null : row.vault_id,
    orderNumber: row.order_number,
    status: row.status,
    ...(row.status === 'Blocked' ? { blockedReason: row.blocked_reason, blockedReturnCode: row.blocked_return_code } : {}),
    ...(row.status === 'Canceled' && isPix(row) && row.canceled_reason ? { canceledReason: row.canceled_reason } : {}),
    ...(authorization ? { pixAuthorization: authorization, payer: pix!.payer } : {}),
    plan: toPlan(plan),
    createdBy: row.created_by,
    createdDate: row.created_at,
  };
}

export function toBilling(row: BillingRow, subscription: SubscriptionView): BillingView {
  return {
    id: row.billing_id,
    status: row.status,
    expireAt: row.expire_at,
    amount: toJsonNumber(BigInt(row.amount), PLAN_AMOUNT.decimals),
    installment: row.installment,
    subscription,
    createdBy: row.created_by,
    createdDate: row.created_at,
    modifiedBy: row.modified_by,
    modifiedDate: row.modified_at,
  };
}

export function historyOf(row: Pick<BillingRow, 'attempts_history'>): AttemptEntry[] {
  return JSON.parse(row.attempts_history) as AttemptEntry[];
}
