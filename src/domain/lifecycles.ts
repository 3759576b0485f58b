import { DomainError } from './errors.js';

/**
 * The status machines of the gateway's resources: each machine's states as stored, and the one
 * table of the moves its writers make (from -> allowed to). A state with no exits is final.
 * Writers check a move here before they write it (the write itself stays a compare-and-set on
 * the state it read, so a concurrent change still wins cleanly); a write that keeps the status
 * (a 3-D Secure step of a Pending payment, evidence on a dispute under review, a billing's retry,
 * a bank slip's confirmation or write-off) changes no state and is not a move.
 */

/** Card payments (payments.status): the API's status names. */
export const PAYMENT_STATUSES = ['Pending', 'PendingAuthentication', 'Authorized', 'Blocked', 'Denied', 'Canceled', 'Paid'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
const PAYMENT_MOVES: Record<PaymentStatus, readonly PaymentStatus[]> = {
  // The acquirer's answer (Blocked: approved, held by anti-fraud review), or a 3-D Secure challenge or failure.
  Pending: ['PendingAuthentication', 'Authorized', 'Blocked', 'Denied'],
  // The challenge's result: authenticated (sent to the acquirer next) or not (never sent).
  PendingAuthentication: ['Pending', 'Denied'],
  // Every installment received; a cancel, a full refund or a lost chargeback.
  Authorized: ['Paid', 'Canceled'],
  // The operator's review: approved, or rejected (cancelled).
  Blocked: ['Authorized', 'Canceled'],
  // A full refund or a lost chargeback after settlement.
  Paid: ['Canceled'],
  Denied: [],
  Canceled: [],
};

/** Refunds of card payments (payment_refunds.status): recorded Pending before they are sent. */
export const REFUND_STATUSES = ['Pending', 'Succeeded', 'Failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];
const REFUND_MOVES: Record<RefundStatus, readonly RefundStatus[]> = {
  Pending: ['Succeeded', 'Failed'],
  Succeeded: [],
  Failed: [],
};

/** Disputes (disputes.status): chargebacks and MED claims. */
export const DISPUTE_STATUSES = ['NeedsResponse', 'UnderReview', 'Won', 'Lost', 'Accepted'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];
/** The states that still take evidence and a decision. */
export const OPEN_DISPUTE_STATUSES = ['NeedsResponse', 'UnderReview'] as const satisfies readonly DisputeStatus[];
const DISPUTE_MOVES: Record<DisputeStatus, readonly DisputeStatus[]> = {
  // Evidence, the network's decision, the merchant's acceptance, or (MED) the PSP's return.
  NeedsResponse: ['UnderReview', 'Won', 'Lost', 'Accepted'],
  UnderReview: ['Won', 'Lost', 'Accepted'],
  // A MED claim lost or accepted keeps its status when the PSP's return closes it.
  Won: [],
  Lost: [],
  Accepted: [],
};

/** Billings of subscriptions (billings.status). */
export const BILLING_STATUSES = ['Opened', 'Paid', 'Denied', 'PaymentInvalid', 'Canceled'] as const;
export type BillingStatus = (typeof BILLING_STATUSES)[number];
const BILLING_MOVES: Record<BillingStatus, readonly BillingStatus[]> = {
  // A charge's outcome (a retry keeps it Opened), or a cancel (of the billing, its subscription or its plan).
  Opened: ['Paid', 'Denied', 'PaymentInvalid', 'Canceled'],
  Paid: [],
  Denied: [],
  PaymentInvalid: [],
  Canceled: [],
};

/** Subscriptions (subscriptions.status); PendingAuthorization: a Pix subscription awaiting its payer. */
export const SUBSCRIPTION_STATUSES = ['PendingAuthorization', 'Active', 'Blocked', 'Canceled', 'Finished'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
const SUBSCRIPTION_MOVES: Record<SubscriptionStatus, readonly SubscriptionStatus[]> = {
  // The payer authorizes (Pix), or the merchant, the plan, the payer or the PSP cancels.
  PendingAuthorization: ['Active', 'Canceled'],
  // A cancelled card blocks it; a Custom plan's last billing finishes it.
  Active: ['Blocked', 'Canceled', 'Finished'],
  // `Actived` reactivates a card subscription.
  Blocked: ['Active', 'Canceled'],
  Canceled: ['Active'],
  Finished: [],
};

/** Pix charges (pix_charges.status). */
export const PIX_CHARGE_STATUSES = ['Pending', 'Paid', 'Expired'] as const;
export type PixChargeStatus = (typeof PIX_CHARGE_STATUSES)[number];
const PIX_CHARGE_MOVES: Record<PixChargeStatus, readonly PixChargeStatus[]> = {
  Pending: ['Paid', 'Expired'],
  // A PSP reports a payment that arrived after the charge expired: the money came, it is Paid.
  Expired: ['Paid'],
  Paid: [],
};

/** Bank slips (bankslips.status_bill, the seed's statusBill codes). */
export const BANK_SLIP_STATUSES = [1, 2, 3, 9, 99] as const;
export type BankSlipStatus = (typeof BANK_SLIP_STATUSES)[number];
const BANK_SLIP_MOVES: Record<BankSlipStatus, readonly BankSlipStatus[]> = {
  // 1 processing: registered (2), or failed (99: registration failed, or cancelled before it).
  1: [2, 99],
  // 2 issued: paid (3), past its due date (9), rejected by the bank (99).
  2: [3, 9, 99],
  // 9 overdue: paid late, or rejected by the bank.
  9: [3, 99],
  3: [],
  99: [],
};

const MACHINES = {
  payments: PAYMENT_MOVES,
  refunds: REFUND_MOVES,
  disputes: DISPUTE_MOVES,
  billings: BILLING_MOVES,
  subscriptions: SUBSCRIPTION_MOVES,
  pixCharges: PIX_CHARGE_MOVES,
  bankSlips: BANK_SLIP_MOVES,
} as const;

export type Machine = keyof typeof MACHINES;
export type StatusOf<M extends Machine> = keyof (typeof MACHINES)[M] & (string | number);

const NOUN: Record<Machine, string> = {
  payments: 'payment',
  refunds: 'refund',
  disputes: 'dispute',
  billings: 'billing',
  subscriptions: 'subscription',
  pixCharges: 'Pix charge',
  bankSlips: 'bank slip',
};

/** The moves out of `from` (none: a final state). */
export function movesFrom<M extends Machine>(machine: M, from: StatusOf<M>): readonly StatusOf<M>[] {
  return (MACHINES[machine] as Record<StatusOf<M>, readonly StatusOf<M>[]>)[from] ?? [];
}

export function canMove<M extends Machine>(machine: M, from: StatusOf<M>, to: StatusOf<M>): boolean {
  return movesFrom(machine, from).includes(to);
}

/** The states a move to `to` may start from: a writer's `where status in (...)` guard. */
export function sourcesOf<M extends Machine>(machine: M, to: StatusOf<M>): StatusOf<M>[] {
  const table = MACHINES[machine] as Record<StatusOf<M>, readonly StatusOf<M>[]>;
  return (Object.keys(table) as string[]).map((k) => (typeof to === 'number' ? Number(k) : k) as StatusOf<M>).filter((from) => table[from].includes(to));
}

/**
 * A writer asked for a move its machine's table does not have: the resource's state does not
 * allow it (409). Disputes answer their state conflicts under the tag `status`, the others under
 * `invalid_state`, as their writers always have.
 */
export class IllegalTransition extends DomainError {
  constructor(
    readonly machine: Machine,
    readonly from: string | number,
    readonly to: string | number,
  ) {
    super('conflict', machine === 'disputes' ? 'status' : 'invalid_state', `A ${NOUN[machine]} in status ${from} cannot move to ${to}.`);
  }
}

/** Throws IllegalTransition unless `from` -> `to` is in the machine's table. */
export function assertTransition<M extends Machine>(machine: M, from: StatusOf<M>, to: StatusOf<M>): void {
  if (!canMove(machine, from, to)) throw new IllegalTransition(machine, from, to);
}

/** assertTransition for each state of `from` but `to` itself (a writer guarded by an IN-list; keeping the status is no move). */
export function assertTransitions<M extends Machine>(machine: M, from: readonly StatusOf<M>[], to: StatusOf<M>): void {
  for (const f of from) if (f !== to) assertTransition(machine, f, to);
}
