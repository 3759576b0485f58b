import type { Selectable } from 'kysely';
import type { BillingsTable, PlansTable, SubscriptionsTable } from '../../db/schema.js';
import { PLAN_AMOUNT, toJsonNumber } from '../../domain/money.js';

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
}

export interface SubscriptionView {
  id: string;
  vaultId: string;
  orderNumber: string;
  status: string;
  /** Extension, present while Blocked: why (the blocking charge's return message and code). */
  blockedReason?: string | null;
  blockedReturnCode?: string | null;
  plan: PlanView;
  createdBy: string | null;
  createdDate: string;
}

export interface AttemptEntry {
  date: string;
  returnCode: string | null;
  returnMessage: string;
  paymentId: string | null;
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
  };
}

export function toSubscription(row: SubscriptionRow, plan: PlanRow): SubscriptionView {
  return {
    id: row.subscription_id,
    vaultId: row.vault_id,
    orderNumber: row.order_number,
    status: row.status,
    ...(row.status === 'Blocked' ? { blockedReason: row.blocked_reason, blockedReturnCode: row.blocked_return_code } : {}),
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
