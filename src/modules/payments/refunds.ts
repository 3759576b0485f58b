import { AcquirerUnavailable, type Acquirer, type RefundRequest, type RefundResult as AcquirerRefund } from '../../acquirer/types.js';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../../db/unavailable.js';
import type { Executor } from '../../db/connection.js';
import { conflict, invalid, notFound, unavailable, type DomainError } from '../../domain/errors.js';
import type { PaymentStatus } from '../../domain/lifecycles.js';
import { timeOrderedUuid } from '../../ids.js';
import { errorMessage } from '../../jobs/queue.js';
import { RetryLater } from '../../jobs/registry.js';
import { recordNotifications, type BusinessEvent } from '../webhooks/outbox.js';
import { leftOf } from './disputes.js';
import { refundsRepository, type RefundRow } from './refund-repository.js';
import { paymentsRepository, type PaymentRow } from './repository.js';
import type { RefundBody, RefundList, RefundResult } from './schemas.js';
import type { PaymentDeps } from './deps.js';
import { recordTransition } from './status-changes.js';
import { relayPending } from './relay.js';

export const REFUND_RECOVER_JOB = 'refund.recover';
/** One recovery job per refund: the dedupe key it is enqueued and cancelled under. */
export const refundRecoverKey = (refundId: string) => `${REFUND_RECOVER_JOB}:${refundId}`;
/** A Pending refund's recovery job runs this long after its settle window (our own answer normally comes first). */
const RECOVER_MARGIN_MS = 15_000;
/** "At once" lookups after a lost answer, before the caller is answered: the delays between tries. */
const LOOKUP_DELAYS_MS = [0, 250, 1000];
/** As Authorizations: a short rest of the settle window is waited out in the job rather than rescheduled. */
const MAX_WAIT_IN_JOB_MS = 30_000;
/** What a payment must be to be refunded: captured, not cancelled, not held by review. */
const REFUNDABLE: readonly PaymentStatus[] = ['Authorized', 'Paid'];

export type RefundResolution =
  | { kind: 'settled'; refund: RefundRow }
  | { kind: 'unknown'; retryInMs: number; why: string; inFlight?: boolean }
  | { kind: 'not_received'; refund: RefundRow; payment: PaymentRow };

export function toRefundResult(row: RefundRow): RefundResult {
  return {
    refundId: row.refund_id,
    paymentId: row.payment_id,
    amount: Number(row.amount),
    status: row.status as RefundResult['status'],
    returnMessage: row.return_message,
    createdAt: row.created_at,
  };
}

/**
 * The amount a refund may take, or the error that refuses it (nothing sent, nothing written):
 * 409 `status` for a payment that cannot be refunded now, 400 `amount` for an amount it does
 * not have left. Without an amount, what is left is refunded.
 */
export function refundAmountOf(
  payment: Pick<PaymentRow, 'status' | 'amount' | 'refunded_amount' | 'charged_back_amount' | 'open_dispute_id'>,
  requested: number | undefined,
  pending: { refund_id: string } | undefined,
): number {
  if (!REFUNDABLE.includes(payment.status)) {
    throw conflict(`A payment in status ${payment.status} cannot be refunded; only Authorized or Paid ones can.`, 'status');
  }
  // One refund of a sale in flight at a time: the acquirer's refunded total then tells each one apart.
  if (pending) throw conflict(`Refund ${pending.refund_id} of this payment is still waiting for the acquirer's answer; send this one once it is settled.`, 'status');
  // The cardholder's bank is already taking the money back: a refund now could pay it twice.
  if (payment.open_dispute_id) throw conflict(`Dispute ${payment.open_dispute_id} of this payment is open; it cannot be refunded until the dispute is closed.`, 'status');
  // What a chargeback took is no longer the merchant's to refund.
  const left = leftOf(payment);
  const amount = requested ?? left;
  if (amount < 1) throw invalid('amount', 'amount must be at least 1 cent.');
  if (amount > left) throw invalid('amount', `amount (${amount}) is more than what is left to refund of this payment (${left} cents).`);
  return amount;
}

const failed = (returnMessage: string): AcquirerRefund => ({ outcome: 'failed', returnMessage });

/** What is sent to the acquirer for a refund. */
function requestOf(refund: RefundRow, payment: PaymentRow): RefundRequest {
  return { merchantId: payment.merchant_id, acquirerReference: payment.acquirer_reference!, amount: Number(refund.amount), refundedBefore: Number(refund.refunded_before) };
}

/**
 * Refunds of card payments, on the payment's own path: the refund is recorded Pending (with its
 * recovery job) under its own id, sent to the acquirer outside any transaction with that id as
 * the idempotency key, and its answer recorded after, with its money and notifications. An
 * answer that did not come is looked up (the acquirer's record: the sandbox's ledger, Cielo's
 * VoidedAmount), at once and then by the job; a refund is never sent a second time, so it is
 * made at most once, and it is never left unresolved.
 */
export class Refunds {
  constructor(
    private readonly ctx: PaymentDeps,
    private readonly acquirer: Acquirer,
  ) {}

  async create(merchantId: string, paymentId: string, body: RefundBody): Promise<RefundResult> {
    const { ctx } = this;
    const now = ctx.clock.now();
    const refundId = timeOrderedUuid(now);
    const recoverAt = new Date(now.getTime() + (await this.acquirer.settleWindowMs(merchantId)) + RECOVER_MARGIN_MS);
    const { refund, payment } = await ctx.database.db.transaction().execute(async (trx) => {
      // Locked (PostgreSQL; SQLite has one writer): the checks and the insert see every refund decided before.
      const payment = await paymentsRepository.find(trx, paymentId, merchantId, { lock: ctx.database.dialect === 'postgres' });
      if (!payment) throw notFound('Payment');
      // A refund reduces the sale's receivables: what the sale still has to relay is relayed first.
      await relayPending(trx, ctx, [paymentId]);
      const amount = refundAmountOf(payment, body.amount, await refundsRepository.pendingOf(trx, paymentId));
      const at = now.toISOString();
      const refund: RefundRow = {
        refund_id: refundId,
        payment_id: paymentId,
        merchant_id: payment.merchant_id,
        account_number: payment.account_number,
        amount,
        refunded_before: Number(payment.refunded_amount),
        status: 'Pending',
        return_message: null,
        // Set with the insert: should we die before the send, the settle window runs from here.
        acquirer_sent_at: ctx.clock.wallNow().toISOString(),
        created_at: at,
        updated_at: at,
      };
      await refundsRepository.insert(trx, refund);
      await ctx.queue.enqueue(trx, { kind: REFUND_RECOVER_JOB, payload: { refundId }, runAt: recoverAt, dedupeKey: refundRecoverKey(refundId) });
      return { refund, payment };
    });
    return toRefundResult(await this.send(refund, payment));
  }

  async list(merchantId: string, paymentId: string): Promise<RefundList> {
    const db = this.ctx.database.db;
    if (!(await paymentsRepository.find(db, paymentId, merchantId))) throw notFound('Payment');
    return { items: (await refundsRepository.listOf(db, paymentId)).map(toRefundResult) };
  }

  /** Sends a recorded refund and records what is known: the answer, or (lost, not found at once) nothing: it stays Pending. */
  private async send(refund: RefundRow, payment: PaymentRow): Promise<RefundRow> {
    const request = requestOf(refund, payment);
    let result: AcquirerRefund;
    try {
      result = await this.acquirer.refund(request, { idempotencyKey: refund.refund_id });
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw refundUnrecorded(refund.refund_id);
      if (error instanceof AcquirerUnavailable && !error.sent) {
        // Never left this process: the acquirer cannot have acted on it.
        result = failed('The acquirer could not be reached; nothing was sent or refunded');
      } else {
        this.ctx.logger.warn({ refundId: refund.refund_id, paymentId: refund.payment_id, err: errorMessage(error) }, 'acquirer answer to a refund lost: looking it up');
        const found = await this.lookupAtOnce(request, refund.refund_id);
        if (!found) return refund;
        result = found;
      }
    }
    try {
      return await this.record(refund, result);
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw refundUnrecorded(refund.refund_id);
      throw error;
    }
  }

  /** A few quick lookups; only a refund found made is concluded here ("no record" needs the settle window). */
  private async lookupAtOnce(request: RefundRequest, refundId: string): Promise<AcquirerRefund | null> {
    for (const delay of LOOKUP_DELAYS_MS) {
      if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
      try {
        const known = await this.acquirer.lookupRefund(request, { idempotencyKey: refundId });
        if (known) return known;
      } catch {
        // Unanswered: try again, then leave it to the recovery job.
      }
    }
    return null;
  }

  /** Asks the acquirer about a Pending refund. Throws AcquirerUnavailable when it cannot be asked. */
  async resolve(refundId: string): Promise<RefundResolution> {
    const db = this.ctx.database.db;
    const refund = await refundsRepository.find(db, refundId);
    if (!refund) throw new Error(`refund ${refundId} does not exist`);
    if (refund.status !== 'Pending') return { kind: 'settled', refund };
    const payment = (await paymentsRepository.find(db, refund.payment_id))!;
    const known = await this.acquirer.lookupRefund(requestOf(refund, payment), { idempotencyKey: refundId });
    if (known) return { kind: 'settled', refund: await this.record(refund, known) };
    const window = await this.acquirer.settleWindowMs(refund.merchant_id);
    const age = this.ctx.clock.wallNow().getTime() - Date.parse(refund.acquirer_sent_at);
    if (age < window) return { kind: 'unknown', retryInMs: window - age, why: 'a refund sent may still be in flight', inFlight: true };
    return { kind: 'not_received', refund, payment };
  }

  /**
   * The recovery job of a refund left Pending (a crash, a lost answer): settled from the
   * acquirer's record; one the acquirer never received failed, and nothing was refunded.
   */
  async recover(refundId: string): Promise<void> {
    let resolution = await this.resolve(refundId);
    if (resolution.kind === 'unknown' && resolution.inFlight && resolution.retryInMs <= MAX_WAIT_IN_JOB_MS) {
      const waitMs = resolution.retryInMs + 10;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      resolution = await this.resolve(refundId);
    }
    if (resolution.kind === 'unknown') throw new RetryLater(new Date(this.ctx.clock.now().getTime() + resolution.retryInMs), resolution.why);
    if (resolution.kind === 'not_received') {
      const message = 'The acquirer has no record of the refund; nothing was refunded';
      // A connector that can (the sandbox) closes the key first: a refund still on its way is then refused.
      const closed = await this.acquirer.closeRefund?.(requestOf(resolution.refund, resolution.payment), { idempotencyKey: refundId }, message);
      await this.record(resolution.refund, closed ?? failed(message));
    }
  }

  /**
   * Records the acquirer's answer of a Pending refund, once (compare-and-set on its status), with
   * its effects in the same transaction: for a refund made, the payment's refunded amount, its
   * receivables and notifications; for one refused, `refund.failed`. Drops the recovery job.
   */
  async record(refund: RefundRow, result: AcquirerRefund): Promise<RefundRow> {
    const { ctx } = this;
    const at = ctx.clock.now().toISOString();
    const status = result.outcome === 'refunded' ? 'Succeeded' : 'Failed';
    const recorded = await ctx.database.db.transaction().execute(async (trx) => {
      const settled = await refundsRepository.settle(trx, refund.refund_id, status, result.outcome === 'failed' ? result.returnMessage : null, at);
      await ctx.queue.cancel(trx, refundRecoverKey(refund.refund_id));
      if (!settled) return undefined;
      if (status === 'Succeeded') await this.applyRefunded(trx, settled, at);
      else await recordNotifications(trx, ctx.queue, [], [], [refundEvent(settled, 'refund.failed', at, { returnMessage: settled.return_message })]);
      return settled;
    });
    if (recorded) ctx.logger.info({ event: `refund.${status.toLowerCase()}`, refundId: refund.refund_id, paymentId: refund.payment_id, amount: Number(refund.amount) }, 'refund recorded');
    return recorded ?? (await refundsRepository.find(ctx.database.db, refund.refund_id))!;
  }

  /**
   * A refund the acquirer made, on the payment's side: the refunded amount, the receivables
   * (settlement), and the notifications. Refunded in full, the payment is Canceled exactly as a
   * cancel makes it (its event, the TransactionStatus webhook, the callback, installments C);
   * partly refunded, it keeps its status and its urlCallBack hears of the refund.
   */
  private async applyRefunded(trx: Executor, refund: RefundRow, at: string): Promise<void> {
    const { ctx } = this;
    const payment = await paymentsRepository.addRefunded(trx, refund.payment_id, Number(refund.amount), at);
    const settles = REFUNDABLE.includes(payment.status);
    if (settles) await ctx.settlement.onPaymentRefund(trx, payment, Number(refund.amount));
    const full = settles && leftOf(payment) <= 0;
    let status = payment.status;
    if (full && (await recordTransition(trx, ctx, payment.payment_id, payment.status, 'Canceled', at))) {
      await ctx.settlement.onPaymentTransition(trx, payment, payment.status, 'Canceled');
      status = 'Canceled';
    }
    const callbacks =
      payment.url_callback && status === payment.status
        ? [{ merchantId: payment.merchant_id, accountNumber: Number(payment.account_number), url: payment.url_callback, paymentId: payment.payment_id, status, referenceTransaction: payment.reference_transaction, amount: Number(payment.amount), refundedAmount: Number(payment.refunded_amount), at }]
        : [];
    const event = refundEvent(refund, 'payment.refunded', at, {
      refundedAmount: Number(payment.refunded_amount),
      status,
      referenceTransaction: payment.reference_transaction,
      nsu: payment.nsu,
      authorizationCode: payment.authorization_code,
    });
    await recordNotifications(trx, ctx.queue, [], callbacks, [event]);
  }
}

function refundEvent(refund: RefundRow, type: 'payment.refunded' | 'refund.failed', at: string, extra: Record<string, unknown>): BusinessEvent {
  return {
    merchantId: refund.merchant_id,
    accountNumber: Number(refund.account_number),
    type,
    at,
    data: { paymentId: refund.payment_id, refundId: refund.refund_id, amount: Number(refund.amount), ...extra },
  };
}

/** The 503 of a refund sent whose answer our database could not record: it names the refund, which stays Pending and is resolved. */
function refundUnrecorded(refundId: string): DomainError {
  return unavailable(
    'database_unavailable',
    `The database is not reachable right now. Refund ${refundId} stays Pending and is resolved automatically: list the payment's refunds before refunding again.`,
  ).retryAfter(DATABASE_RETRY_AFTER_SECONDS);
}
