import { timeOrderedUuid } from '../../ids.js';
import { AcquirerUnavailable, type Acquirer } from '../../acquirer/types.js';
import { RETURN_MESSAGES } from '../../acquirer/types.js';
import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/connection.js';
import { maskPan } from '../../domain/cards.js';
import type { Pricing } from '../../domain/fees.js';
import { saleSplitBases, splitBase, splitShare } from '../../domain/split.js';
import { ApiError, conflict, notFound } from '../../http/errors.js';
import type { JobDefinition } from '../../jobs/registry.js';
import { Authorizations, failureError, RECOVER_JOB, recoverKey, reportOutcome, unknownError, type Resolution } from './authorization.js';
import { checkCardAgreement, decryptedCardOf, storedCardAhead, storedCardOf } from './card-source.js';
import { paymentsRepository, type PaymentRow } from './repository.js';
import { checkPaymentRules, type ParsedSplit } from './rules.js';
import type { PaymentBody, PaymentResult } from './schemas.js';
import { recordEvent, recordTransition } from './transitions.js';
import { reviewQueuePage, type ReviewAfter, type ReviewRow } from './review-queue.js';
import { sandboxDelete, type ResetCounts, type ResetExecutor } from '../../db/sandbox-reset.js';
import { maskDocument, paymentReads, type DayFigures, type PaymentFilter, type PaymentListRow } from './reads.js';
import { prefetchSubscriptions } from '../webhooks/outbox.js';

export { RECOVER_JOB };
/** The payment row, for the modules that read a payment through this service (settlement's conciliation). */
export type { PaymentRow };
/** What another module may read of a payment by id: its status and the acquirer's answer. */
export type PaymentState = Pick<PaymentRow, 'payment_id' | 'status' | 'return_code' | 'return_message'>;

/** A payment as another module reads it by its reference (a payment link's checkout payments). */
export type ReferencedPayment = Pick<PaymentRow, 'payment_id' | 'status' | 'amount' | 'installments' | 'authorization_code' | 'brand' | 'masked_card_number'>;

/** What the payment service uses of the process's services. */
export type PaymentDeps = Pick<AppContext, 'database' | 'clock' | 'logger' | 'cards' | 'antifraud' | 'queue' | 'settlement' | 'metrics'>;

/** What the dashboard's payment page shows beyond the API's answer (issue 19): no card data beyond the mask. */
export interface PaymentDetail {
  payment: PaymentResult;
  accountNumber: number;
  antiFraudReasons: string[];
  customer: { name: string | null; document: string | null } | null;
  events: { oldStatus: string; newStatus: string; at: string }[];
}

export interface Payer {
  merchantId: string;
  accountNumber: number;
}

export type CreateOutcome = { status: 201; body: PaymentResult } | { status: 502; error: ApiError };

/**
 * A caller's own writes that commit with the payment, in its transaction (the billing engine's
 * claim and outcome, with an in-database connector): `before` runs first and may refuse, and
 * then nothing is written and `create` throws PaymentNotTaken; `after` runs last, with the
 * payment as settled. One COMMIT instead of three (docs/performance.md, issue 15).
 */
export interface WithinPayment {
  before(trx: Executor): Promise<boolean>;
  /**
   * The stored card, as read in the transaction, before anti-fraud and the acquirer: throw to
   * refuse it (everything rolls back); answers the cardholder name to record and send.
   */
  storedCard?(card: { expMonth: string; expYear: string; cardholderName?: string }): string;
  after(trx: Executor, row: PaymentRow): Promise<void>;
}

/**
 * A check of the caller that the payment's transaction carries (the API credential's re-read,
 * src/modules/auth/carried-credential.ts): `readIn` asks for its read as the transaction starts,
 * so on PostgreSQL it rides the first round trip; `confirm` throws to refuse the payment, and is
 * awaited before anything is written that could commit or reach the acquirer.
 */
export interface PayerCheck {
  readIn(trx: Executor): Promise<void>;
  confirm(): Promise<void>;
}

/** `WithinPayment.before` refused: the transaction rolled back, nothing was written or charged. */
export class PaymentNotTaken extends Error {
  constructor() {
    super('the caller refused the payment inside its transaction');
  }
}

interface StoredSplit {
  documentNumberBeneficiary: string;
  type: string;
  percent: number;
  amount: number;
}

export function toPaymentResult(row: PaymentRow): PaymentResult {
  return {
    paymentId: row.payment_id,
    status: row.status as PaymentResult['status'],
    returnCode: row.return_code,
    returnMessage: row.return_message,
    authorizationCode: row.authorization_code,
    nsu: row.nsu,
    amount: Number(row.amount),
    installments: row.installments,
    productType: row.product_type,
    brand: row.brand,
    maskedCardNumber: row.masked_card_number,
    referenceTransaction: row.reference_transaction,
    antiFraud: { decision: row.antifraud_decision, score: row.antifraud_score },
    splits: JSON.parse(row.splits) as StoredSplit[],
    createdAt: row.created_at,
  };
}

/**
 * Split shares in cents: bruto on the amount, liquido on what the merchant nets after MDR and
 * fees under its pricing at the moment of the sale (the rule: src/domain/split.ts).
 */
function shares(splits: ParsedSplit[], amount: number, installments: number, pricing: Pricing): StoredSplit[] {
  const bases = saleSplitBases(pricing, BigInt(amount), installments);
  return splits.map((s) => ({
    documentNumberBeneficiary: s.documentNumberBeneficiary,
    type: s.type,
    percent: Number(s.percent) / 100,
    amount: Number(splitShare(splitBase(s.type, bases), s.percent)),
  }));
}

/**
 * Card payments (contract section 6). The local record is written first; the acquirer is
 * called outside any transaction with the payment id as its idempotency key; the outcome is
 * recorded after. A crash in between leaves the payment Pending with a recovery job that asks
 * the acquirer what happened under that key: nothing is ever authorized twice. A connector
 * whose record is in this database (the sandbox) is called inside the payment's transaction
 * instead: one commit holds the payment, the charge and the outcome, or none of them.
 */
export class PaymentService {
  /** The acquirer side: send, resolve an ambiguous answer, record, recover. */
  readonly authorizations: Authorizations;

  constructor(
    private readonly ctx: PaymentDeps,
    private readonly acquirer: Acquirer,
  ) {
    this.authorizations = new Authorizations(ctx, acquirer);
  }

  /**
   * `extra.billingId` links a recurrence charge to its billing. `extra.paymentId` lets such a
   * caller fix the id before the call (it records it first): the id is the primary key and the
   * acquirer's idempotency key, so a retried call with it can never make a second payment.
   */
  async create(payer: Payer, body: PaymentBody, extra: { billingId?: string; paymentId?: string; within?: WithinPayment; payerCheck?: PayerCheck } = {}): Promise<CreateOutcome> {
    const { ctx } = this;
    const splits = checkPaymentRules(body);
    const encrypted = await decryptedCardOf(ctx, body.cardInfo);
    const now = ctx.clock.now();
    const paymentId = extra.paymentId ?? timeOrderedUuid(now);
    const at = now.toISOString();
    // A billing's payment has no recovery job of its own: the billing's charge job is its
    // recovery (it resumes under the same payment id and settles a Pending payment, see
    // recurrence/charge-attempt.ts), and it alone may send such a payment again.
    const billing = extra.billingId !== undefined;
    // Before the transaction: they read the merchant's acquirer connection (a query of its own).
    // A connector whose ledger is in this database (the sandbox) authorizes inside the
    // payment's transaction, which then holds everything: no recovery job either.
    const inDatabase = await this.authorizations.inDatabaseFor(payer.merchantId);
    const recoverAt = billing || inDatabase ? null : await this.authorizations.recoverAt(payer.merchantId, now);
    // An external connector's payment settles after its transaction: nothing could run with it.
    const within = extra.within;
    if (within && !inDatabase) throw new Error('payments: `within` needs an in-database connector');

    const { row, card } = await ctx.database.db.transaction().execute(async (trx) => {
      await extra.payerCheck?.readIn(trx);
      // The account's webhook subscriptions, for the status event this transaction writes: read
      // with its first statement, so no read is left between its writes (outbox.ts).
      prefetchSubscriptions(trx, payer.accountNumber);
      if (within && !(await within.before(trx))) throw new PaymentNotTaken();
      // A stored card on PostgreSQL is read (a token consumed) with the anti-fraud query, in one round trip.
      const ahead = encrypted ? undefined : await storedCardAhead(ctx, trx, payer.merchantId, body.cardInfo);
      const resolved = ahead ? undefined : (encrypted ?? (await storedCardOf(ctx, trx, payer.merchantId, body.cardInfo)));
      if (!ahead && !resolved) throw new ApiError(400, 'cardInfo', 'Send exactly one card source: numberToken, encryptedCard or vaultId.');
      const customer = body.customer;
      const assessment = await ctx.antifraud.assess(trx, {
        merchantId: payer.merchantId,
        amount: body.payment.amount,
        cardFingerprint: resolved ? resolved.fingerprint : ahead!.fingerprint,
        customer: customer && {
          documentNumber: customer.documentNumber,
          email: customer.email,
          ipAddress: customer.ipAddress,
          country: customer.country,
        },
      });
      // Every statement so far only read (a numberToken's consumption rolls back with a refusal).
      await extra.payerCheck?.confirm();
      const card = checkCardAgreement(resolved ?? (await ahead!.card()), body.cardInfo);
      const cardholderName = within?.storedCard ? within.storedCard(card) : body.cardInfo.cardholderName;
      const rejected = assessment.decision === 'Reject';
      const row: PaymentRow = {
        payment_id: paymentId,
        merchant_id: payer.merchantId,
        account_number: payer.accountNumber,
        status: rejected ? 'Denied' : 'Pending',
        amount: body.payment.amount,
        installments: body.payment.installments,
        product_type: body.payment.productType,
        transaction_type: body.payment.transactionType,
        brand: card.brand,
        masked_card_number: maskPan(card.pan),
        card_fingerprint: card.fingerprint,
        card_source: card.source,
        vault_id: card.vaultId ?? null,
        cardholder_name: cardholderName,
        reference_transaction: body.referenceTransaction ?? null,
        url_callback: body.urlCallBack ?? null,
        code_anti_fraud: body.sellerInfo.codeAntiFraud,
        customer: customer ? JSON.stringify(customer) : null,
        customer_document: customer?.documentNumber ?? null,
        customer_email: customer?.email?.toLowerCase() ?? null,
        customer_ip: customer?.ipAddress ?? null,
        antifraud_decision: assessment.decision,
        antifraud_score: assessment.score,
        antifraud_reasons: JSON.stringify(assessment.reasons),
        return_code: rejected ? '59' : null,
        return_message: rejected ? RETURN_MESSAGES['59'] : null,
        authorization_code: null,
        nsu: null,
        acquirer_reference: null,
        splits: JSON.stringify(
          splits.length ? shares(splits, body.payment.amount, body.payment.installments, await ctx.settlement.pricing.get(trx, payer.merchantId)) : [],
        ),
        billing_id: extra.billingId ?? null,
        created_at: at,
        updated_at: at,
        // Set with the insert: should we die before the send, the settle window runs from here.
        acquirer_sent_at: rejected ? null : ctx.clock.wallNow().toISOString(),
      };
      if (!rejected && inDatabase) {
        const settled = await this.authorizations.authorizeWithin(trx, inDatabase, row, card);
        await within?.after(trx, settled);
        return { row: settled, card };
      }
      await paymentsRepository.insert(trx, row);
      if (rejected) {
        // A rejected payment never reaches the acquirer.
        await recordEvent(trx, ctx.queue, row, '', 'Denied', at);
        await within?.after(trx, row);
      } else if (recoverAt) {
        await ctx.queue.enqueue(trx, {
          kind: RECOVER_JOB,
          payload: { paymentId },
          runAt: recoverAt,
          dedupeKey: recoverKey(paymentId),
        });
      }
      return { row, card };
    });
    if (row.status !== 'Pending') {
      // Settled in its own transaction: refused by anti-fraud (59, the acquirer never sees it),
      // or answered by an in-database connector. Reported once, now that it is committed.
      reportOutcome(ctx, row);
      if (row.return_code === '96') return { status: 502, error: failureError(row) };
      return { status: 201, body: toPaymentResult(row) };
    }

    const sent = await this.authorizations.send(row, card);
    // No answer and no record found at once: the recovery job settles it from the acquirer's record.
    if (!sent.known) return { status: 502, error: unknownError(paymentId) };
    if (sent.row.status === 'Denied' && sent.row.return_code === '96') return { status: 502, error: failureError(sent.row) };
    return { status: 201, body: toPaymentResult(sent.row) };
  }

  /** Does this merchant's connector answer inside the payment's transaction (`create`'s `within` is possible)? */
  async settlesWithin(merchantId: string): Promise<boolean> {
    return (await this.authorizations.inDatabaseFor(merchantId)) !== undefined;
  }

  /** Records the acquirer's answer for a Pending payment (see Authorizations.record). */
  recordOutcome(row: PaymentRow, result: Parameters<Authorizations['record']>[1]): Promise<PaymentRow> {
    return this.authorizations.record(row, result);
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
    if (!mayResend) return { kind: 'settled', row: await this.authorizations.recordFailure(row, 'Not sent again: the subscription stopped before the acquirer received the charge. Nothing was charged.') };
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
    let result;
    try {
      result = await this.acquirer.cancel(
        { merchantId: row.merchant_id, acquirerReference: row.acquirer_reference!, amount: Number(row.amount) },
        { idempotencyKey: `cancel:${paymentId}` },
      );
    } catch (error) {
      // The void may or may not have been made; sending it again is safe (a voided sale answers as voided).
      if (error instanceof AcquirerUnavailable) throw new ApiError(502, 'acquirer_unavailable', `The acquirer did not answer the cancel of payment ${paymentId}; it is still ${row.status}. Send the cancel again.`);
      throw error;
    }
    if (result.outcome === 'failed') throw new ApiError(502, 'acquirer_failure', `The acquirer could not cancel payment ${paymentId}: ${result.returnMessage}.`);
    const moved = await ctx.database.db
      .transaction()
      .execute(async (trx) => {
        const moved = await recordTransition(trx, ctx.queue, paymentId, row.status, 'Canceled', ctx.clock.now().toISOString());
        if (moved) await ctx.settlement.onPaymentTransition(trx, row, row.status, 'Canceled');
        return moved;
      });
    if (!moved) throw conflict('The payment changed status meanwhile; it was not cancelled twice.');
    return toPaymentResult((await paymentsRepository.find(ctx.database.db, paymentId))!);
  }

  /** The operator's decision on a payment held by anti-fraud review (status Blocked). */
  async review(paymentId: string, decision: 'approve' | 'reject'): Promise<PaymentResult> {
    const { ctx } = this;
    const row = await paymentsRepository.find(ctx.database.db, paymentId);
    if (!row) throw notFound('Payment');
    if (row.status !== 'Blocked') throw conflict(`Only a Blocked payment can be reviewed; this one is ${row.status}.`);
    if (decision === 'reject') return this.cancel(undefined, paymentId);
    const moved = await ctx.database.db
      .transaction()
      .execute(async (trx) => {
        const moved = await recordTransition(trx, ctx.queue, paymentId, 'Blocked', 'Authorized', ctx.clock.now().toISOString());
        if (moved) await ctx.settlement.onPaymentTransition(trx, row, 'Blocked', 'Authorized');
        return moved;
      });
    if (!moved) throw conflict('The payment changed status meanwhile.');
    return toPaymentResult((await paymentsRepository.find(ctx.database.db, paymentId))!);
  }

  /**
   * The operator dashboard's review queue (issue 19): Blocked payments of every merchant, oldest
   * first, keyset-paged (review-queue.ts). No API lists them; the dashboard may not query this table.
   */
  reviewQueue(after: ReviewAfter | undefined, limit: number): Promise<ReviewRow[]> {
    return reviewQueuePage(this.ctx.database.db, after, limit);
  }

  /**
   * The merchant's payments made under `reference` (referenceTransaction), newest first: a
   * payment link reads its checkout's payments (`paymentlink:<id>`) through this.
   */
  listByReference(merchantId: string, reference: string): Promise<ReferencedPayment[]> {
    return paymentsRepository.byReference(this.ctx.database.db, merchantId, reference);
  }

  /**
   * The dashboard's payment list (issue 19): the merchant's payments matching the filter, newest
   * first, keyset-paged; no API lists payments, and the dashboard may not query this table.
   */
  search(merchantId: string, filter: PaymentFilter, limit: number): Promise<PaymentListRow[]> {
    return paymentReads.page(this.ctx.database.db, merchantId, filter, limit);
  }

  /** The dashboard's charts (issue 19): sales, approvals and decisions per day (half-open ISO bounds each). */
  dayFigures(merchantId: string, days: { date: string; from: string; to: string }[]): Promise<DayFigures[]> {
    return paymentReads.dayFigures(this.ctx.database.db, merchantId, days);
  }

  /** The dashboard's declines chart (issue 19): Denied payments by return code over a range. */
  declines(merchantId: string, from: string, to: string): Promise<{ returnCode: string; count: number }[]> {
    return paymentReads.declines(this.ctx.database.db, merchantId, from, to);
  }

  /**
   * The dashboard's payment page: the API's answer plus the anti-fraud reasons, the customer's
   * name and masked document, and the status changes (payment_events). Another merchant's id is 404.
   */
  async detail(merchantId: string, paymentId: string): Promise<PaymentDetail> {
    const db = this.ctx.database.db;
    const row = await paymentsRepository.find(db, paymentId, merchantId);
    if (!row) throw notFound('Payment');
    const customer = row.customer ? (JSON.parse(row.customer) as { firstName?: string; lastName?: string; documentNumber?: string }) : null;
    const name = customer ? [customer.firstName, customer.lastName].filter(Boolean).join(' ') || null : null;
    const events = await paymentReads.events(db, merchantId, paymentId);
    return {
      payment: toPaymentResult(row),
      accountNumber: Number(row.account_number),
      antiFraudReasons: JSON.parse(row.antifraud_reasons) as string[],
      customer: customer && { name, document: maskDocument(customer.documentNumber) },
      events: events.map((e) => ({ oldStatus: e.old_status, newStatus: e.new_status, at: e.occurred_at })),
    };
  }

  /** Sandbox reset (src/modules/sandbox/reset-service.ts): this module's business rows, every merchant's or one's. */
  async resetSandboxData(executor: ResetExecutor, merchantId?: string): Promise<ResetCounts> {
    return { payment_events: await sandboxDelete(executor, 'payment_events', merchantId), payments: await sandboxDelete(executor, 'payments', merchantId) };
  }

  /** The recovery job (src/context.ts registers it). */
  jobs(): JobDefinition[] {
    // Keeps asking (with backoff) until the acquirer answers: an unanswered lookup is never "not received".
    return [{ kind: RECOVER_JOB, handler: async ({ paymentId }: { paymentId: string }) => this.recover(paymentId), maxAttempts: 100 }];
  }
}
