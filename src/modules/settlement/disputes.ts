import type { Executor } from '../../db/connection.js';
import { chargebackDebitOf } from '../../domain/refunds.js';
import { insertDebit, type RefundMoneyDeps } from './refunds.js';
import { receivablesRepository } from './repository.js';

/**
 * A card payment's receivables while it is disputed (the seed's installment statuses): blocked
 * (B) while the dispute is open, so the sweep pays none of them; approved (A) again when the
 * merchant wins; lost, the disputed amount is the merchant's to give back.
 */
export const disputeMoney = {
  /** Every installment not cancelled becomes B, received ones included (the money is held). */
  async hold(trx: Executor, paymentId: string): Promise<void> {
    await receivablesRepository.setInstallmentStatus(trx, paymentId, 'A', 'B');
  },

  /** The blocked installments are approved again (the caller settles those already due). */
  async release(trx: Executor, paymentId: string): Promise<void> {
    await receivablesRepository.setInstallmentStatus(trx, paymentId, 'B', 'A');
  },

  /**
   * A chargeback of `amountCents` lost. `whole` (it takes what was left of the sale): the open
   * installments are cancelled with the payment, so only what they would not have covered is
   * debited; otherwise the installments are released and the whole amount is debited. Either
   * way the merchant gives back exactly the disputed amount, and no MDR or fee.
   */
  async lose(trx: Executor, deps: RefundMoneyDeps, paymentId: string, amountCents: number, whole: boolean): Promise<void> {
    const rows = await receivablesRepository.installmentsOf(trx, paymentId, deps.lock);
    if (rows.length === 0) throw new Error(`payment ${paymentId} has no receivables to charge back`);
    const open = rows.filter((r) => r.received_status === 'A' && r.installment_status !== 'C');
    const forgone = whole ? open.reduce((sum, r) => sum + BigInt(r.received_value), 0n) : 0n;
    if (!whole) await this.release(trx, paymentId);
    const debit = chargebackDebitOf(BigInt(amountCents) * 100n, forgone);
    if (debit) await insertDebit(trx, deps, rows[0], debit);
  },
};
