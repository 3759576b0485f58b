import type { Executor } from '../../db/connection.js';
import { conflict } from '../../domain/errors.js';
import type { PaymentStatus } from '../../domain/lifecycles.js';
import { refundsRepository } from './refund-repository.js';
import { recordTransition } from './status-changes.js';
import { relayPending } from './relay.js';
import { paymentsRepository, type PaymentRow } from './repository.js';
import type { PaymentDeps } from './deps.js';
import { threeDsAnswer } from './three-ds-state.js';

/** What the disputes module reads of a payment. */
export type DisputedPayment = Pick<
  PaymentRow,
  'payment_id' | 'merchant_id' | 'account_number' | 'status' | 'amount' | 'refunded_amount' | 'charged_back_amount' | 'open_dispute_id' | 'brand' | 'nsu' | 'authorization_code'
> & {
  /** Its 3-D Secure authentication shifted the fraud liability to the issuer. */
  liabilityShift: boolean;
};

/** Statuses a chargeback can hit: a captured sale the merchant still holds money of. */
export const DISPUTABLE: readonly PaymentStatus[] = ['Authorized', 'Paid'];

/** Cents of the payment not refunded nor charged back yet. */
export const leftOf = (p: Pick<PaymentRow, 'amount' | 'refunded_amount' | 'charged_back_amount'>) =>
  Number(p.amount) - Number(p.refunded_amount) - Number(p.charged_back_amount);

/**
 * The payments module's side of disputes (the disputes module calls these through
 * PaymentService.disputes, in its own transactions): which dispute is open on a payment, and
 * what chargebacks took of it. While a dispute is open the payment is neither refunded nor
 * cancelled; a chargeback that takes what is left cancels it exactly as a cancel does.
 */
export class PaymentDisputes {
  constructor(private readonly ctx: Pick<PaymentDeps, 'database' | 'queue' | 'settlement' | 'cards'>) {}

  /**
   * The payment, whatever its merchant; `lock` (PostgreSQL) holds it to the end of the caller's
   * transaction. What its sale still has to relay is relayed first: a chargeback holds receivables.
   */
  async find(trx: Executor, paymentId: string, lock: boolean): Promise<DisputedPayment | undefined> {
    const payment = await paymentsRepository.find(trx, paymentId, undefined, { lock });
    if (!payment) return undefined;
    await relayPending(trx, this.ctx, [paymentId]);
    return { ...payment, liabilityShift: liabilityShifted(payment) };
  }

  /**
   * Marks the dispute open on the payment; false when another one is, or the payment is no
   * longer disputable. A refund still waiting for the acquirer's answer is 409: what the
   * chargeback takes depends on it.
   */
  async open(trx: Executor, paymentId: string, disputeId: string): Promise<boolean> {
    const pending = await refundsRepository.pendingOf(trx, paymentId);
    if (pending) throw conflict(`Refund ${pending.refund_id} of this payment is still waiting for the acquirer's answer; register the chargeback once it is settled.`, 'status');
    return paymentsRepository.setOpenDispute(trx, paymentId, null, disputeId, DISPUTABLE);
  }

  /**
   * Closes the payment's dispute. `lostCents` (lost or accepted) are charged back; when they take
   * what was left, the payment moves to Canceled with its event, notifications and installments.
   * Answers the payment as it is now.
   */
  async close(trx: Executor, paymentId: string, disputeId: string, lostCents: number, at: string): Promise<DisputedPayment> {
    const payment = await paymentsRepository.closeDispute(trx, paymentId, disputeId, lostCents, at);
    if (lostCents > 0 && leftOf(payment) <= 0 && DISPUTABLE.includes(payment.status)) {
      if (await recordTransition(trx, this.ctx, paymentId, payment.status, 'Canceled', at)) {
        await this.ctx.settlement.onPaymentTransition(trx, payment, payment.status, 'Canceled');
        return { ...payment, status: 'Canceled', liabilityShift: liabilityShifted(payment) };
      }
    }
    return { ...payment, liabilityShift: liabilityShifted(payment) };
  }
}

const liabilityShifted = (payment: Pick<PaymentRow, 'three_ds'>) => threeDsAnswer(payment.three_ds)?.liabilityShift ?? false;
