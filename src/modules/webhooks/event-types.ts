/**
 * The event catalogue (docs/events.md). Two families share one delivery engine, signature and
 * delivery log:
 * - the conciliation notifications of the seed (`TransactionStatus`, `InstallmentStatus`,
 *   `BankSlipStatus`), whose body stays exactly as the seed documents it;
 * - one event per business state change, named `<resource>.<what happened>` in lower case with
 *   `_` between words (`billing.retry_scheduled`), whose body is
 *   `{movementId, type, moment, data}`.
 * A webhook subscription lists the types it receives; without a list it receives the
 * conciliation family only: a subscription made as the seed describes it gets what the seed promises.
 */
export const CONCILIATION_TYPES = ['TransactionStatus', 'InstallmentStatus', 'BankSlipStatus'] as const;
export type ConciliationType = (typeof CONCILIATION_TYPES)[number];

export const EVENT_TYPES = [
  'payment.authentication_required',
  'payment.authenticated',
  'payment.authorized',
  'payment.denied',
  'payment.blocked',
  'payment.canceled',
  'payment.paid',
  'payment.installment_paid',
  'payment.installment_canceled',
  'payment.refunded',
  'refund.failed',
  'dispute.created',
  'dispute.updated',
  'dispute.closed',
  'billing.opened',
  'billing.paid',
  'billing.denied',
  'billing.retry_scheduled',
  'billing.payment_invalid',
  'billing.canceled',
  'billing.payment_failed',
  'subscription.active',
  'subscription.authorized',
  'subscription.canceled',
  'subscription.blocked',
  'subscription.finished',
  'subscription.card_updated',
  'subscription.card_expiring',
  'card.updated',
  'plan.status_changed',
  'payment_link.paid',
  'payment_link.expired',
  'payment_link.deactivated',
  'bank_slip.issued',
  'bank_slip.registered',
  'bank_slip.paid',
  'bank_slip.overdue',
  'bank_slip.written_off',
  'bank_slip.canceled',
  'bank_slip.failed',
  'pix_charge.paid',
  'pix_charge.expired',
  'pix.refunded',
  'pix.refund_failed',
  'prepayment.made',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Every type a subscription can name; `*` stands for all of them. */
export const ALL_TYPES: readonly string[] = [...CONCILIATION_TYPES, ...EVENT_TYPES];
export const WILDCARD = '*';

/** The stored choice (null: the default) as the set of types delivered. */
export function typesOf(stored: string | null): readonly string[] {
  return stored === null ? CONCILIATION_TYPES : (JSON.parse(stored) as string[]);
}

/** Whether a subscription with this stored choice receives events of `type`. */
export function receives(stored: string | null, type: string): boolean {
  const types = typesOf(stored);
  return types.includes(type) || types.includes(WILDCARD);
}

/** The names in a subscription's list that are no type (empty when every name is known). */
export function unknownTypes(names: readonly string[]): string[] {
  return names.filter((n) => n !== WILDCARD && !ALL_TYPES.includes(n));
}
