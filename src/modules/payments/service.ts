import { timeOrderedUuid } from '../../ids.js';
import { AcquirerUnavailable, type Acquirer } from '../../acquirer/types.js';
import type { Executor } from '../../db/connection.js';
import { ApiError, conflict, notFound } from '../../http/errors.js';
import type { JobDefinition } from '../../jobs/registry.js';
import { sandboxDelete, type ResetCounts, type ResetExecutor } from '../../db/sandbox-reset.js';
import { Authorizations, failureError, RECOVER_JOB, recoverKey, reportOutcome, unknownError, type Resolution } from './authorization.js';
import type { PaymentDeps } from './deps.js';
import { checkCardAgreement, decryptedCardOf, storedCardOf } from './card-source.js';
import { newPaymentRow, splitShares, toPaymentResult } from './payment-row.js';
import { PaymentReadModels } from './read-models.js';
import { leftOf, PaymentDisputes } from './disputes.js';
import { refundsRepository } from './refund-repository.js';
import { REFUND_RECOVER_JOB, Refunds } from './refunds.js';
import { paymentsRepository, type PaymentRow } from './repository.js';
import { checkPaymentRules } from './rules.js';
import type { PaymentBody, PaymentResult } from './schemas.js';
import { recordEvent, recordTransition } from './transitions.js';

export { RECOVER_JOB, toPaymentResult };
/** The payment row, for the modules that read a payment through this service (settlement's conciliation). */
export type { PaymentRow };
/** What another module may read of a payment by id: its status and the acquirer's answer. */
export type PaymentState = Pick<PaymentRow, 'payment_id' | 'status' | 'return_code' | 'return_message'>;

export interface Payer {
  merchantId: string;
  accountNumber: number;
}

export type CreateOutcome = { status: 201; body: PaymentResult } | { status: 502; error: ApiError };

/**
 * Card payments (contract section 6), whichever connector charges them: the payment is
 * recorded first (Pending, with its recovery job), the acquirer is called outside any
 * transaction with the payment id as its idempotency key, and the outcome is recorded after
 * (authorization.ts). A crash in between leaves the payment Pending, and its recovery job asks
 * the acquirer what happened under that key: nothing is ever authorized twice.
 */
export class PaymentService {
  /** The acquirer side: send, resolve an ambiguous answer, record, recover. */
  readonly authorizations: Authorizations;
  /** What the dashboard and the payment links read. */
  readonly reads: PaymentReadModels;
  /** Partial and full refunds of captured payments (./refunds.ts). */
  readonly refunds: Refunds;
  /** What the disputes module changes of a payment (./disputes.ts). */
  readonly disputes: PaymentDisputes;

  constructor(
    private readonly ctx: PaymentDeps,
    private readonly acquirer: Acquirer,
  ) {
    this.authorizations = new Authorizations(ctx, acquirer);
    this.reads = new PaymentReadModels(ctx.database);
    this.refunds = new Refunds(ctx, acquirer);
    this.disputes = new PaymentDisputes(ctx);
  }

  /**
   * `extra.billingId` links a recurrence charge to its billing. `extra.paymentId` lets such a
   * caller fix the id before the call (it records it first): the id is the primary key and the
   * acquirer's idempotency key, so a retried call with it can never make a second payment.
   */
  async create(payer: Payer, body: PaymentBody, extra: { billingId?: string; paymentId?: string } = {}): Promise<CreateOutcome> {
    const { ctx } = this;
    const splits = checkPaymentRules(body);
    // RSA is CPU work, not database work: done before the transaction.
    const encrypted = await decryptedCardOf(ctx, body.cardInfo);
    const now = ctx.clock.now();
    const paymentId = extra.paymentId ?? timeOrderedUuid(now);
    // A billing's payment has no recovery job of its own: the billing's charge job is its
    // recovery (it resumes under the same payment id and settles a Pending payment, see
    // recurrence/charge-attempt.ts), and it alone may send such a payment again.
    const billingId = extra.billingId ?? null;
    const recoverAt = billingId ? null : await this.authorizations.recoverAt(payer.merchantId, now);

    const { row, card } = await ctx.database.db.transaction().execute(async (trx) => {
      // A numberToken is consumed here: a payment that rolls back leaves it usable.
      const resolved = encrypted ?? (await storedCardOf(ctx, trx, payer.merchantId, body.cardInfo));
      if (!resolved) throw new ApiError(400, 'cardInfo', 'Send exactly one card source: numberToken, encryptedCard or vaultId.');
      const card = checkCardAgreement(resolved, body.cardInfo);
      const customer = body.customer;
      const assessment = await ctx.antifraud.assess(trx, {
        merchantId: payer.merchantId,
        amount: body.payment.amount,
        cardFingerprint: card.fingerprint,
        customer: customer && { documentNumber: customer.documentNumber, email: customer.email, ipAddress: customer.ipAddress, country: customer.country },
      });
      const pricing = splits.length ? await ctx.settlement.pricing.get(trx, payer.merchantId) : undefined;
      const row = newPaymentRow({
        paymentId,
        merchantId: payer.merchantId,
        accountNumber: payer.accountNumber,
        body,
        card,
        assessment,
        splits: pricing ? splitShares(splits, body.payment.amount, body.payment.installments, pricing) : [],
        billingId,
        at: now.toISOString(),
        // Set with the insert: should we die before the send, the settle window runs from here.
        sentAt: ctx.clock.wallNow().toISOString(),
      });
      await paymentsRepository.insert(trx, row);
      // A rejected payment never reaches the acquirer: it is settled here, with its event.
      if (row.status === 'Denied') await recordEvent(trx, ctx.queue, row, '', 'Denied', row.created_at);
      else if (recoverAt) await ctx.queue.enqueue(trx, { kind: RECOVER_JOB, payload: { paymentId }, runAt: recoverAt, dedupeKey: recoverKey(paymentId) });
      return { row, card };
    });
    if (row.status !== 'Pending') {
      reportOutcome(ctx, row);
      return { status: 201, body: toPaymentResult(row) };
    }

    const sent = await this.authorizations.send(row, card);
    // No answer and no record found at once: the recovery job settles it from the acquirer's record.
    if (!sent.known) return { status: 502, error: unknownError(paymentId) };
    if (sent.row.status === 'Denied' && sent.row.return_code === '96') return { status: 502, error: failureError(sent.row) };
    return { status: 201, body: toPaymentResult(sent.row) };
  }

  /** The recovery job: settles a payment whose acquirer answer was lost. */
  recover(paymentId: string): Promise<void> {
    return this.authorizations.recover(paymentId);
  }

  /**
   * For the billing engine, which owns its payments' fate: settles a Pending billing payment
   * from the acquirer's record and, when the acquirer never received it, sends it again with
   * the stored card (`mayResend`) or records that nothing was charged. Throws
   * AcquirerUnavailable when the acquirer cannot be asked.
   */
  async settleBillingPayment(paymentId: string, mayResend: boolean): Promise<Resolution> {
    const resolution = await this.authorizations.resolveWaiting(paymentId);
    if (resolution.kind !== 'not_received') return resolution;
    const { row } = resolution;
    if (!mayResend) return { kind: 'settled', row: await this.authorizations.recordNotReceived(row, 'Not sent again: the subscription stopped before the acquirer received the charge. Nothing was charged.') };
    const card = row.vault_id
      ? await storedCardOf(this.ctx, this.ctx.database.db, row.merchant_id, { vaultId: row.vault_id, cardholderName: row.cardholder_name }).catch((error) => {
          if (error instanceof ApiError && error.statusCode < 500) return null;
          throw error;
        })
      : null;
    return this.authorizations.resend(row, card ?? null);
  }

  /**
   * A payment's status and answer by id, whatever its merchant, or undefined when there is no
   * such payment (the billing engine reads back the payments it made under its own ids).
   */
  async find(paymentId: string): Promise<PaymentState | undefined> {
    const row = await paymentsRepository.find(this.ctx.database.db, paymentId);
    return row && { payment_id: row.payment_id, status: row.status, return_code: row.return_code, return_message: row.return_message };
  }

  /**
   * For the settlement sweep, in its transaction: a card payment whose installments are all
   * received moves from Authorized to Paid, with its event and notifications. False when it was
   * no longer Authorized (cancelled meanwhile): nothing is written.
   */
  recordPaid(trx: Executor, paymentId: string, at: string): Promise<boolean> {
    return recordTransition(trx, this.ctx.queue, paymentId, 'Authorized', 'Paid', at);
  }

  /** For the settlement sweep, in its transaction (PostgreSQL): the payments' rows locked in id order. */
  async lockPayments(trx: Executor, paymentIds: string[]): Promise<void> {
    if (paymentIds.length > 0) await paymentsRepository.lockAll(trx, paymentIds);
  }

  async get(merchantId: string, paymentId: string): Promise<PaymentResult> {
    const row = await paymentsRepository.find(this.ctx.database.db, paymentId, merchantId);
    if (!row) throw notFound('Payment');
    return toPaymentResult(row);
  }

  /** Cancels an Authorized or Blocked payment in full (contract section 6); anything else is 409. */
  async cancel(merchantId: string | undefined, paymentId: string): Promise<PaymentResult> {
    const { ctx } = this;
    const row = await paymentsRepository.find(ctx.database.db, paymentId, merchantId);
    if (!row) throw notFound('Payment');
    if (row.status !== 'Authorized' && row.status !== 'Blocked') {
      throw conflict(`A payment in status ${row.status} cannot be cancelled; only Authorized or Blocked ones can.`);
    }
    // A refund in flight is part of the sale's refunded total the acquirer will show: voiding the rest now could not be told apart from it.
    const pending = await refundsRepository.pendingOf(ctx.database.db, paymentId);
    if (pending) throw conflict(`Refund ${pending.refund_id} of this payment is still waiting for the acquirer's answer; cancel once it is settled.`);
    if (row.open_dispute_id) throw conflict(`Dispute ${row.open_dispute_id} of this payment is open; it cannot be cancelled until the dispute is closed.`);
    let result;
    try {
      result = await this.acquirer.cancel(
        // What is left of the sale after its refunds and chargebacks.
        { merchantId: row.merchant_id, acquirerReference: row.acquirer_reference!, amount: leftOf(row) },
        { idempotencyKey: `cancel:${paymentId}` },
      );
    } catch (error) {
      // The void may or may not have been made; sending it again is safe (a voided sale answers as voided).
      if (error instanceof AcquirerUnavailable) throw new ApiError(502, 'acquirer_unavailable', `The acquirer did not answer the cancel of payment ${paymentId}; it is still ${row.status}. Send the cancel again.`);
      throw error;
    }
    if (result.outcome === 'failed') throw new ApiError(502, 'acquirer_failure', `The acquirer could not cancel payment ${paymentId}: ${result.returnMessage}.`);
    if (!(await this.move(row, 'Canceled'))) throw conflict('The payment changed status meanwhile; it was not cancelled twice.');
    return toPaymentResult((await paymentsRepository.find(ctx.database.db, paymentId))!);
  }

  /** The operator's decision on a payment held by anti-fraud review (status Blocked). */
  async review(paymentId: string, decision: 'approve' | 'reject'): Promise<PaymentResult> {
    const { ctx } = this;
    const row = await paymentsRepository.find(ctx.database.db, paymentId);
    if (!row) throw notFound('Payment');
    if (row.status !== 'Blocked') throw conflict(`Only a Blocked payment can be reviewed; this one is ${row.status}.`);
    if (decision === 'reject') return this.cancel(undefined, paymentId);
    if (!(await this.move(row, 'Authorized'))) throw conflict('The payment changed status meanwhile.');
    return toPaymentResult((await paymentsRepository.find(ctx.database.db, paymentId))!);
  }

  /** Moves a settled payment to `to` with its event and its receivables' change, in one transaction. */
  private move(row: PaymentRow, to: string): Promise<boolean> {
    const { ctx } = this;
    return ctx.database.db.transaction().execute(async (trx) => {
      const moved = await recordTransition(trx, ctx.queue, row.payment_id, row.status, to, ctx.clock.now().toISOString());
      if (moved) await ctx.settlement.onPaymentTransition(trx, row, row.status, to);
      return moved;
    });
  }

  /** Sandbox reset (src/modules/sandbox/reset-service.ts): this module's business rows, every merchant's or one's. */
  async resetSandboxData(executor: ResetExecutor, merchantId?: string): Promise<ResetCounts> {
    return {
      payment_events: await sandboxDelete(executor, 'payment_events', merchantId),
      payment_refunds: await sandboxDelete(executor, 'payment_refunds', merchantId),
      payments: await sandboxDelete(executor, 'payments', merchantId),
    };
  }

  /** The recovery jobs of payments and refunds (src/context.ts registers them). */
  jobs(): JobDefinition[] {
    // Each keeps asking (with backoff) until the acquirer answers: an unanswered lookup is never "not received".
    return [
      { kind: RECOVER_JOB, handler: async ({ paymentId }: { paymentId: string }) => this.recover(paymentId), maxAttempts: 100 },
      { kind: REFUND_RECOVER_JOB, handler: async ({ refundId }: { refundId: string }) => this.refunds.recover(refundId), maxAttempts: 100 },
    ];
  }
}
