import type { Insertable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import { prepared } from '../../db/prepared.js';
import type { WebhookNotificationsTable } from '../../db/schema.js';
import type { JobQueue, NewJob } from '../../jobs/queue.js';

/**
 * The transactional outbox of notifications. Every writer of an event row (a payment's status,
 * an installment received or canceled, a bank slip's status, a Pix charge paid) calls
 * `recordNotifications` in the same transaction: the notification and its delivery job commit
 * with the change or not at all, and in the order the events were written.
 */
const subscriptionOf = prepared<{ account: number }, { account_number: number }>((db, v) => db.selectFrom('webhook_subscriptions').select('account_number').where('account_number', '=', v('account')));

export const DELIVER_JOB = 'webhook.deliver';
/** Retries of one notification stop this long after it was made (or redelivered). */
export const RETRY_WINDOW_MS = 72 * 60 * 60 * 1000;
/**
 * Job attempts of one delivery job. Retries after a receiver's failure do not spend them (the
 * notification keeps its own count); only a worker that died mid-delivery does.
 */
export const DELIVER_JOB_MAX_ATTEMPTS = 25;

export type WebhookType = 'TransactionStatus' | 'InstallmentStatus' | 'BankSlipStatus';
/** The transaction and installment values that are notified (seed "Events" 1). */
export const NOTIFIED_STATUSES: readonly string[] = ['Authorized', 'Canceled', 'Blocked', 'Paid'];

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
  at: string;
}

export const deliverJobKey = (notificationId: number) => `${DELIVER_JOB}:${notificationId}`;

/**
 * Writes the notifications of these changes and a delivery job for each, through the caller's
 * transaction and the process's queue. Account events become notifications only for accounts
 * with a subscription at this moment (one indexed look-up for the lot); callbacks always do.
 */
export function recordNotifications(db: Executor, queue: JobQueue, events: AccountEvent[], callbacks: PaymentCallback[] = []): Promise<void> {
  return writeNotifications(db, events, callbacks, (jobs) => queue.enqueueMany(db, jobs));
}

async function writeNotifications(
  db: Executor,
  events: AccountEvent[],
  callbacks: PaymentCallback[],
  enqueue: (jobs: NewJob[], at: Date) => Promise<unknown>,
): Promise<void> {
  if (events.length === 0 && callbacks.length === 0) return;
  const subscribed = new Set<number>();
  if (events.length > 0) {
    const accounts = [...new Set(events.map((e) => e.accountNumber))];
    // One account is the common case (a payment's change): a statement compiled once.
    const rows = accounts.length === 1 ? (await subscriptionOf.execute(db, { account: accounts[0] })).rows : await db.selectFrom('webhook_subscriptions').select('account_number').where('account_number', 'in', accounts).execute();
    for (const row of rows) subscribed.add(Number(row.account_number));
  }
  const rows: Insertable<WebhookNotificationsTable>[] = [];
  for (const e of events) {
    if (!subscribed.has(e.accountNumber)) continue;
    // Key order is the seed's; movementId goes first when the body is sent (deliveryBody).
    const payload = { nsu: e.nsu, codAuth: e.codAuth, installmentNumber: e.installmentNumber, moment: e.at, type: e.type, oldValue: e.oldValue, newValue: e.newValue };
    rows.push(newNotification(e.merchantId, e.accountNumber, 'webhook', e.type, payload, null, e.at));
  }
  for (const c of callbacks) {
    const payload = { paymentId: c.paymentId, status: c.status, referenceTransaction: c.referenceTransaction, amount: c.amount, moment: c.at };
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
}

/**
 * A payment's status change: a TransactionStatus webhook for the statuses the seed notifies
 * (oldValue "" for a new transaction), and the urlCallBack for every change (Denied included).
 */
export function recordPaymentChange(db: Executor, queue: JobQueue, p: PaymentSubject, oldStatus: string, newStatus: string, at: string): Promise<void> {
  const events: AccountEvent[] = NOTIFIED_STATUSES.includes(newStatus)
    ? [{ merchantId: p.merchant_id, accountNumber: Number(p.account_number), type: 'TransactionStatus', nsu: p.nsu ?? '', codAuth: p.authorization_code ?? '', installmentNumber: 0, oldValue: oldStatus, newValue: newStatus, at }]
    : [];
  const callbacks: PaymentCallback[] = p.url_callback
    ? [{ merchantId: p.merchant_id, accountNumber: Number(p.account_number), url: p.url_callback, paymentId: p.payment_id, status: newStatus, referenceTransaction: p.reference_transaction, amount: Number(p.amount), at }]
    : [];
  return recordNotifications(db, queue, events, callbacks);
}
