import { threeDsAnswer } from '../payments/three-ds-state.js';
import type { Insertable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { WebhookNotificationsTable } from '../../db/schema.js';
import type { JobQueue, NewJob } from '../../jobs/queue.js';
import { receives, type EventType } from './event-types.js';
import type { PaymentStatus } from '../../domain/lifecycles.js';

/**
 * The transactional outbox of notifications. Every writer of an event row (a payment's status,
 * an installment received or canceled, a bank slip's status, a Pix charge paid) and of a
 * catalogue event (docs/events.md) calls `recordNotifications` or `recordEvents` in the same
 * transaction: the notification and its delivery job commit
 * with the change or not at all, and in the order the events were written.
 */
export const DELIVER_JOB = 'webhook.deliver';
/** Retries of one notification stop this long after it was made (or redelivered). */
export const RETRY_WINDOW_MS = 72 * 60 * 60 * 1000;
/**
 * Job attempts of one delivery job. Retries after a receiver's failure do not spend them (the
 * notification keeps its own count); only a worker that died mid-delivery does.
 */
export const DELIVER_JOB_MAX_ATTEMPTS = 25;

export type WebhookType = 'TransactionStatus' | 'InstallmentStatus' | 'BankSlipStatus';

/**
 * A business state change (docs/events.md): delivered to the subscriptions that chose its type,
 * with the body `{movementId, type, moment, data}`. `accountNumber` null: a change of the
 * merchant as a whole (a plan), delivered to each of its accounts' subscriptions that chose it.
 */
export interface BusinessEvent {
  merchantId: string;
  accountNumber: number | null;
  type: EventType;
  /** Business time of the change (ISO). */
  at: string;
  /** What changed; amounts as the resource's own API shows them (docs/events.md). */
  data: Record<string, unknown>;
}
/** The transaction and installment values that are notified (seed "Events" 1). */
export const NOTIFIED_STATUSES: readonly string[] = ['Authorized', 'Canceled', 'Blocked', 'Paid'] satisfies readonly PaymentStatus[];

/** A change on an account, as the seed's webhook notification tells it (movementId comes from the row). */
export interface AccountEvent {
  merchantId: string;
  accountNumber: number;
  type: WebhookType;
  nsu: string;
  codAuth: string;
  /** 0 for a whole transaction or a bank slip. */
  installmentNumber: number;
  oldValue: string;
  newValue: string;
  /** Business time of the change (ISO). */
  at: string;
}

/** A payment status change for its urlCallBack (contract section 6). */
export interface PaymentCallback {
  merchantId: string;
  accountNumber: number;
  url: string;
  paymentId: string;
  status: string;
  referenceTransaction: string | null;
  amount: number;
  /** Set by a refund (the status may not have changed): the cents refunded so far. */
  refundedAmount?: number;
  at: string;
}

export const deliverJobKey = (notificationId: number) => `${DELIVER_JOB}:${notificationId}`;

/**
 * Writes the notifications of these changes and a delivery job for each, through the caller's
 * transaction and the process's queue. Account events become notifications only for accounts
 * with a subscription at this moment (one indexed look-up for the lot); callbacks always do.
 */
export function recordNotifications(db: Executor, queue: JobQueue, events: AccountEvent[], callbacks: PaymentCallback[] = [], business: BusinessEvent[] = []): Promise<void> {
  return writeNotifications(db, events, callbacks, business, (jobs) => queue.enqueueMany(db, jobs));
}

/** Business events only (docs/events.md), in the caller's transaction: see recordNotifications. */
export function recordEvents(db: Executor, queue: JobQueue, business: BusinessEvent[]): Promise<void> {
  return recordNotifications(db, queue, [], [], business);
}

type SubscriptionChoice = { account_number: number; merchant_id: string; event_types: string | null };

/**
 * The subscriptions that may hear of these changes: one indexed look-up for the lot, whatever
 * the mix of types (the card payment path stays at one query per change).
 */
async function subscriptionsFor(db: Executor, events: AccountEvent[], business: BusinessEvent[]): Promise<SubscriptionChoice[]> {
  const accounts = [...new Set([...events.map((e) => e.accountNumber), ...business.flatMap((e) => (e.accountNumber === null ? [] : [e.accountNumber]))])];
  const merchants = [...new Set(business.flatMap((e) => (e.accountNumber === null ? [e.merchantId] : [])))];
  if (accounts.length === 0 && merchants.length === 0) return [];
  return db
    .selectFrom('webhook_subscriptions')
    .select(['account_number', 'merchant_id', 'event_types'])
    .where((eb) => eb.or([...(accounts.length > 0 ? [eb('account_number', 'in', accounts)] : []), ...(merchants.length > 0 ? [eb('merchant_id', 'in', merchants)] : [])]))
    .orderBy('account_number')
    .execute();
}

async function writeNotifications(
  db: Executor,
  events: AccountEvent[],
  callbacks: PaymentCallback[],
  business: BusinessEvent[],
  enqueue: (jobs: NewJob[], at: Date) => Promise<unknown>,
): Promise<void> {
  if (events.length === 0 && callbacks.length === 0 && business.length === 0) return;
  const subscriptions = await subscriptionsFor(db, events, business);
  const choiceOf = new Map(subscriptions.map((s) => [Number(s.account_number), s.event_types]));
  const hears = (account: number, type: string) => choiceOf.has(account) && receives(choiceOf.get(account)!, type);
  const rows: Insertable<WebhookNotificationsTable>[] = [];
  for (const e of events) {
    if (!hears(e.accountNumber, e.type)) continue;
    // Key order is the seed's; movementId goes first when the body is sent (deliveryBody).
    const payload = { nsu: e.nsu, codAuth: e.codAuth, installmentNumber: e.installmentNumber, moment: e.at, type: e.type, oldValue: e.oldValue, newValue: e.newValue };
    rows.push(newNotification(e.merchantId, e.accountNumber, 'webhook', e.type, payload, null, e.at));
  }
  for (const e of business) {
    const accounts = e.accountNumber !== null ? [e.accountNumber] : subscriptions.filter((s) => s.merchant_id === e.merchantId).map((s) => Number(s.account_number));
    for (const account of accounts) {
      if (!hears(account, e.type)) continue;
      rows.push(newNotification(e.merchantId, account, 'webhook', e.type, { type: e.type, moment: e.at, data: e.data }, null, e.at));
    }
  }
  for (const c of callbacks) {
    const payload = { paymentId: c.paymentId, status: c.status, referenceTransaction: c.referenceTransaction, amount: c.amount, ...(c.refundedAmount === undefined ? {} : { refundedAmount: c.refundedAmount }), moment: c.at };
    rows.push(newNotification(c.merchantId, c.accountNumber, 'callback', 'PaymentStatus', payload, c.url, c.at));
  }
  if (rows.length === 0) return;
  const inserted = await db.insertInto('webhook_notifications').values(rows).returning(['id', 'created_at']).execute();
  await enqueue(
    inserted.map((row) => ({
      kind: DELIVER_JOB,
      payload: { id: Number(row.id) },
      runAt: new Date(row.created_at),
      // One job per notification, ever: a redeliver re-arms it rather than adding a second
      // one, so no two workers can send the same notification at the same time.
      dedupeKey: deliverJobKey(Number(row.id)),
      maxAttempts: DELIVER_JOB_MAX_ATTEMPTS,
    })),
    new Date(inserted[0].created_at),
  );
}

function newNotification(
  merchantId: string,
  accountNumber: number,
  channel: 'webhook' | 'callback',
  type: string,
  payload: object,
  url: string | null,
  at: string,
): Insertable<WebhookNotificationsTable> {
  return {
    merchant_id: merchantId,
    account_number: accountNumber,
    channel,
    type,
    payload: JSON.stringify(payload),
    url,
    status: 'Pending',
    attempts: 0,
    next_attempt_at: at,
    deadline_at: new Date(new Date(at).getTime() + RETRY_WINDOW_MS).toISOString(),
    created_at: at,
    updated_at: at,
  };
}

/** The exact bytes sent for a notification: the seed's body, movementId first, for webhooks. */
export function deliveryBody(row: { id: number; channel: string; payload: string }): string {
  return row.channel === 'webhook' ? `{"movementId":${Number(row.id)},${row.payload.slice(1)}` : row.payload;
}

/** What a payment row gives a notification. */
export interface PaymentSubject {
  payment_id: string;
  merchant_id: string;
  account_number: number;
  nsu: string | null;
  authorization_code: string | null;
  url_callback: string | null;
  amount: number;
  reference_transaction: string | null;
  /** The payment's 3-D Secure (JSON), for the authentication events. */
  three_ds?: string | null;
}

/** The event of each payment status a payment can reach (Pending is internal: no event). */
const PAYMENT_EVENTS: Record<string, EventType> = {
  PendingAuthentication: 'payment.authentication_required',
  // Not a status: the buyer was authenticated (3-D Secure), the payment goes on to the acquirer.
  Authenticated: 'payment.authenticated',
  Authorized: 'payment.authorized',
  Denied: 'payment.denied',
  Blocked: 'payment.blocked',
  Canceled: 'payment.canceled',
  Paid: 'payment.paid',
};

/** One payment status change, as the notifications of it are made. */
export interface PaymentChange {
  payment: PaymentSubject;
  oldStatus: string;
  newStatus: string;
  /** Business time of the change (ISO). */
  at: string;
}

/**
 * A payment's status change: a TransactionStatus webhook for the statuses the seed notifies
 * (oldValue "" for a new transaction), its payment.<status> event, and the urlCallBack for every
 * change (Denied included).
 */
export function recordPaymentChange(db: Executor, queue: JobQueue, p: PaymentSubject, oldStatus: string, newStatus: string, at: string): Promise<void> {
  return recordPaymentChanges(db, queue, [{ payment: p, oldStatus, newStatus, at }]);
}

/** The notifications of many payment changes at once (the payments relay's batch), in their order: one subscription read, one insert. */
export function recordPaymentChanges(db: Executor, queue: JobQueue, changes: PaymentChange[]): Promise<void> {
  const events: AccountEvent[] = [];
  const callbacks: PaymentCallback[] = [];
  const business: BusinessEvent[] = [];
  for (const { payment: p, oldStatus, newStatus, at } of changes) {
    const account = Number(p.account_number);
    if (NOTIFIED_STATUSES.includes(newStatus)) {
      events.push({ merchantId: p.merchant_id, accountNumber: account, type: 'TransactionStatus', nsu: p.nsu ?? '', codAuth: p.authorization_code ?? '', installmentNumber: 0, oldValue: oldStatus, newValue: newStatus, at });
    }
    // The callback follows the payment's status; an authentication alone does not change it.
    if (p.url_callback && newStatus !== 'Authenticated') {
      callbacks.push({ merchantId: p.merchant_id, accountNumber: account, url: p.url_callback, paymentId: p.payment_id, status: newStatus, referenceTransaction: p.reference_transaction, amount: Number(p.amount), at });
    }
    const type = PAYMENT_EVENTS[newStatus];
    if (type) {
      const data = {
        paymentId: p.payment_id,
        oldStatus,
        status: newStatus === 'Authenticated' ? 'Pending' : newStatus,
        amount: Number(p.amount),
        referenceTransaction: p.reference_transaction,
        nsu: p.nsu,
        authorizationCode: p.authorization_code,
        ...(p.three_ds ? { threeDs: threeDsAnswer(p.three_ds) } : {}),
      };
      business.push({ merchantId: p.merchant_id, accountNumber: account, type, at, data });
    }
  }
  return recordNotifications(db, queue, events, callbacks, business);
}
