import { PLAN_AMOUNT, toJsonNumber } from '../../domain/money.js';
import type { EventType } from '../webhooks/event-types.js';
import type { BusinessEvent } from '../webhooks/outbox.js';

/**
 * The recurrence module's events (docs/events.md): built here, written by the billing engine
 * (`BillingEngine.emit`) in the transaction of the change they describe. Billings and
 * subscriptions are an account's (the subscription's account); a plan is the merchant's.
 */

/** A billing as its events tell it; the account is its subscription's. */
export interface BillingSubject {
  billing_id: string;
  merchant_id: string;
  subscription_id: string;
  installment: number;
  account_number: number;
  amount?: number;
  expire_at?: string;
}

export function billingEvent(type: EventType, b: BillingSubject, at: string, extra: Record<string, unknown> = {}): BusinessEvent {
  return {
    merchantId: b.merchant_id,
    accountNumber: Number(b.account_number),
    type,
    at,
    data: {
      billingId: b.billing_id,
      subscriptionId: b.subscription_id,
      installment: b.installment,
      ...(b.amount !== undefined ? { amount: toJsonNumber(BigInt(b.amount), PLAN_AMOUNT.decimals) } : {}),
      ...(b.expire_at !== undefined ? { expireAt: b.expire_at } : {}),
      ...extra,
    },
  };
}

/** The event of each final billing status. */
export const BILLING_END: Record<string, EventType> = {
  Paid: 'billing.paid',
  Denied: 'billing.denied',
  PaymentInvalid: 'billing.payment_invalid',
  Canceled: 'billing.canceled',
};

export interface SubscriptionSubject {
  subscription_id: string;
  merchant_id: string;
  account_number: number;
  plan_id: string;
}

export function subscriptionEvent(type: EventType, s: SubscriptionSubject, oldStatus: string, at: string, extra: Record<string, unknown> = {}): BusinessEvent {
  const status = type.slice('subscription.'.length).replace(/^./, (c) => c.toUpperCase());
  return {
    merchantId: s.merchant_id,
    accountNumber: Number(s.account_number),
    type,
    at,
    data: { subscriptionId: s.subscription_id, planId: s.plan_id, oldStatus, status, ...extra },
  };
}

/** A plan's status change: the merchant's, heard by every account subscribed to it. */
export function planEvent(p: { plan_id: string; merchant_id: string }, oldStatus: string, status: string, at: string): BusinessEvent {
  return { merchantId: p.merchant_id, accountNumber: null, type: 'plan.status_changed', at, data: { planId: p.plan_id, oldStatus, status } };
}
