import type { ChargeableCard } from '../cards/service.js';
import { timeOrderedUuid } from '../../ids.js';
import { AcquirerUnavailable, type Acquirer, type Initiator, type ReplacementCard } from '../../acquirer/types.js';
import type { Executor } from '../../db/connection.js';
import { conflict, isCallerError, notFound, upstreamFailed } from '../../domain/errors.js';
import type { JobDefinition } from '../../jobs/registry.js';
import { sandboxDelete, type ResetCounts, type ResetExecutor } from '../../db/sandbox-reset.js';
import type { PaymentStatus } from '../../domain/lifecycles.js';
import { Authorizations, reportOutcome, type Resolution } from './authorization.js';
import { createMany, outcomeOf, TAKEN, type BatchOutcome, type BatchPayment, type CreateOutcome, type Payer } from './batch.js';
import type { PaymentDeps } from './deps.js';
import { assessedRows, toPaymentResult } from './payment-row.js';
import { PaymentReadModels } from './read-models.js';
import { leftOf, PaymentDisputes } from './disputes.js';
import { refundsRepository } from './refund-repository.js';
import { REFUND_RECOVER_JOB, Refunds } from './refunds.js';
import { paymentsRepository, type PaymentRow } from './repository.js';
import { checkPaymentRequest } from './request-rules.js';
import type { PaymentBody, PaymentResult } from './schemas.js';
import { recordTransition } from './status-changes.js';
import { PaymentRecovery } from './recovery.js';
import { PaymentAuthentication } from './authentication.js';
import { relayBatch, relayPending, RELAY_BATCH } from './relay.js';
import { SweepLoop } from '../../jobs/sweep-loop.js';

export { toPaymentResult, TAKEN };
export type { BatchOutcome, BatchPayment, CreateOutcome, Payer };
/** The payment row, for the modules that read a payment through this service (settlement's conciliation). */
export type { PaymentRow };
/** What another module may read of a payment by id: its status and the acquirer's answer. */
export type PaymentState = Pick<PaymentRow, 'payment_id' | 'status' | 'return_code' | 'return_message'> & { decline_category?: string | null };


/** The relay's pass comes this soon after a recorded outcome, gathering the outcomes recorded meanwhile into one batch. */
const RELAY_POKE_MS = 50;
/** Without pokes (events another instance wrote, a restart), the relay looks this often: what trails a sale trails by under a second. */
const RELAY_INTERVAL_MS = 250;
/** The recovery pass looks for payments whose recovery is due this often. */
const RECOVERY_INTERVAL_MS = 5_000;

/**
 * Card payments (contract section 6), whichever connector charges them: the payment is
 * recorded first (Pending, with its `recover_at`), the acquirer is called outside any
 * transaction with the payment id as its idempotency key, and the outcome is recorded with its
 * event (authorization.ts); the relay makes what follows (./relay.ts). A crash in between leaves
 * the payment Pending, and the recovery pass (./recovery.ts) asks the acquirer what happened
 * under that key: nothing is ever authorized twice.
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
  /** The 3-D Secure step of a payment, its challenges and their expiry (./authentication.ts). */
  readonly authentication: PaymentAuthentication;
  /** The relay of payment events (./relay.ts), poked by each recorded outcome. */
  private readonly relay: SweepLoop;
  /** The recovery of payments left Pending (./recovery.ts) and its periodic pass. */
  private readonly recovery: PaymentRecovery;
  private readonly recoveryLoop: SweepLoop;

  constructor(
    private readonly ctx: PaymentDeps,
    private readonly acquirer: Acquirer,
  ) {
    this.relay = new SweepLoop(async () => (await relayBatch(ctx)) === RELAY_BATCH, { name: 'payments.relay', intervalMs: RELAY_INTERVAL_MS, pokeMs: RELAY_POKE_MS, logger: ctx.logger });
    this.authorizations = new Authorizations(ctx, acquirer, () => this.relay.poke());
    this.authentication = new PaymentAuthentication(ctx, this.authorizations, () => this.relay.poke());
    this.recovery = new PaymentRecovery(ctx, this.authorizations, this.authentication);
    this.recoveryLoop = new SweepLoop(() => this.recovery.pass(), { name: 'payments.recovery', intervalMs: RECOVERY_INTERVAL_MS, pokeMs: RECOVERY_INTERVAL_MS, logger: ctx.logger });
    this.reads = new PaymentReadModels(ctx.database);
    this.refunds = new Refunds(ctx, acquirer);
    this.disputes = new PaymentDisputes(ctx);
  }

  /**
   * `extra.billingId` links a recurrence charge to its billing. `extra.paymentId` lets such a
   * caller fix the id before the call (it records it first): the id is the primary key and the
   * acquirer's idempotency key, so a retried call with it can never make a second payment.
   */
  async create(payer: Payer, body: PaymentBody, extra: { billingId?: string; paymentId?: string; initiator?: Initiator } = {}): Promise<CreateOutcome> {
    const { ctx } = this;
    const { splits, threeDs: plan } = checkPaymentRequest(body, { sandbox: ctx.threeDs.sandbox, hasServer: ctx.threeDs.server !== undefined });
    const now = ctx.clock.now();
    const paymentId = extra.paymentId ?? timeOrderedUuid(now);
    // A billing's payment is not swept by the recovery: the billing's charge job is its recovery
    // (it resumes under the same payment id and settles a Pending payment, see
    // recurrence/charge-attempt.ts), and it alone may send such a payment again.
    const billingId = extra.billingId ?? null;
    const recoverAt = billingId ? null : (await this.authorizations.recoverAt(payer.merchantId, now)).toISOString();

    const open = async (executor: Executor) => {
      const card: ChargeableCard = await ctx.cards.paymentCard(executor, payer.merchantId, body.cardInfo);
      const [row] = await assessedRows(ctx, executor, [{ payer, body, splits, card, paymentId, billingId, recoverAt, now, plan }]);
      // A rejected payment never reaches the acquirer: it is settled here, with its event.
      if (row.status === 'Denied') await paymentsRepository.insertSettled(ctx.database, executor, row);
      else await paymentsRepository.insert(executor, row);
      return { row, card };
    };
    // A numberToken is consumed with the payment, in one transaction: a payment refused on the
    // way leaves it usable. A vault or encrypted card is only read (an encrypted one decrypted:
    // CPU work, with no transaction open): the payment is one insert, committed on its own.
    const consumesToken = body.cardInfo.encryptedCard === undefined && body.cardInfo.numberToken !== undefined;
    const { row, card } = consumesToken ? await ctx.database.db.transaction().execute(open) : await open(ctx.database.db);
    if (row.status !== 'Pending') {
      this.relay.poke();
      reportOutcome(ctx, row);
      return { kind: 'recorded', payment: toPaymentResult(row) };
    }

    let toSend = row;
    if (plan.kind === 'authenticate') {
      const step = await this.authentication.authenticate(row, card, plan);
      if (step.kind === 'done') return { kind: 'recorded', payment: toPaymentResult(step.row) };
      toSend = step.row;
    }
    return outcomeOf(await this.authorizations.send(toSend, card, extra.initiator));
  }

  /** For the billing engine: a batch's payments made together (./batch.ts). */
  createMany(items: readonly BatchPayment[]): Promise<BatchOutcome[]> {
    return createMany(this.ctx, this.authorizations, items, () => this.relay.poke());
  }

  /** Settles one payment whose acquirer answer was lost (what the recovery pass does for each). */
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
      ? await this.ctx.cards.paymentCard(this.ctx.database.db, row.merchant_id, { vaultId: row.vault_id }).catch((error) => {
          if (isCallerError(error)) return null;
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
    return row && { payment_id: row.payment_id, status: row.status, return_code: row.return_code, return_message: row.return_message, decline_category: row.decline_category ?? null };
  }

  /**
   * For the settlement sweep, in its transaction: a card payment whose installments are all
   * received moves from Authorized to Paid, with its event and notifications. False when it was
   * no longer Authorized (cancelled meanwhile): nothing is written.
   */
  recordPaid(trx: Executor, paymentId: string, at: string): Promise<boolean> {
    return recordTransition(trx, this.ctx, paymentId, 'Authorized', 'Paid', at);
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
      if (error instanceof AcquirerUnavailable) throw upstreamFailed('acquirer_unavailable', `The acquirer did not answer the cancel of payment ${paymentId}; it is still ${row.status}. Send the cancel again.`);
      throw error;
    }
    if (result.outcome === 'failed') throw upstreamFailed('acquirer_failure', `The acquirer could not cancel payment ${paymentId}: ${result.returnMessage}.`);
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
  private move(row: PaymentRow, to: PaymentStatus): Promise<boolean> {
    const { ctx } = this;
    return ctx.database.db.transaction().execute(async (trx) => {
      const moved = await recordTransition(trx, ctx, row.payment_id, row.status, to, ctx.clock.now().toISOString());
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

  /**
   * In the caller's transaction: what these payments' outcomes still have to relay (their
   * notifications, their receivables) is made first, so that a change that follows them (a
   * billing concluded on its payment's outcome) is notified after them.
   */
  relayPending(trx: Executor, paymentIds: string[]): Promise<void> {
    return relayPending(trx, this.ctx, paymentIds);
  }

  /** For /metrics: the oldest payment still Pending and the events the relay has still to make effective. */
  backlog(): Promise<{ oldestPendingAt: string | null; unrelayed: number }> {
    return paymentsRepository.backlog(this.ctx.database.db);
  }

  /** The recovery jobs of refunds (src/root/context.ts registers them). */
  jobs(): JobDefinition[] {
    // It keeps asking (with backoff) until the acquirer answers: an unanswered lookup is never "not received".
    return [{ kind: REFUND_RECOVER_JOB, handler: async ({ refundId }: { refundId: string }) => this.refunds.recover(refundId), maxAttempts: 100 }];
  }

  /**
   * The background passes of this module, where the worker runs (src/server.ts): the relay of
   * payment events, within a second of a sale (./relay.ts), and the recovery of payments left
   * Pending (./recovery.ts).
   */
  startBackground(options: { recovery: boolean }): void {
    this.relay.start();
    if (options.recovery) this.recoveryLoop.start();
  }

  async stopBackground(): Promise<void> {
    await Promise.all([this.relay.stop(), this.recoveryLoop.stop()]);
  }

  /**
   * Everything that trails a sale made now: the relay drained, the recoveries due by `dueBy`
   * (business time) run. The sandbox clock calls it before it moves time; tests, to read what
   * follows a payment without waiting for the relay's next pass.
   */
  async settleBackground(dueBy?: Date): Promise<void> {
    await this.relay.drain();
    if (dueBy) while (await this.recovery.pass(dueBy));
    await this.relay.drain();
  }
}
