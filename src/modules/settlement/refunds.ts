import type { Insertable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { ReceivablesTable } from '../../db/schema.js';
import { businessDayAfter } from '../../domain/calendar.js';
import { debitOf, prorate, reduceInstallment } from '../../domain/refunds.js';
import type { ReceivableRow } from './conciliation-json.js';
import { receivablesRepository } from './repository.js';

/** A card payment being refunded, as conciliation knows it. */
export interface RefundedSale {
  payment_id: string;
  account_number: number;
}

export interface RefundMoneyDeps {
  /** Lock the sale's installments (PostgreSQL: a sweep may mark one received meanwhile). */
  lock: boolean;
  /** Business date of the refund. */
  today: string;
  /** Makes sure the sweep of that date runs (the debit is settled by it). */
  scheduleSweep(trx: Executor, date: string): Promise<void>;
}

/**
 * The money side of a refund of `amountCents`, in the refund's transaction (the arithmetic is
 * src/domain/refunds.ts): the installments not received yet are reduced in proportion to their
 * values; what they cannot cover was paid to the merchant already and becomes a debit against
 * its next receivables. The debit is a conciliation record of the sale itself (same nsu and
 * codAuth, so every search that finds the sale finds it), installment 0 and receivedType D,
 * with negative values, expected on the account's next receipt day: the day's receipts less the
 * debit are what the merchant gets. Splits follow on read, in the sale's proportions.
 */
export async function refundReceivables(trx: Executor, deps: RefundMoneyDeps, sale: RefundedSale, amountCents: bigint): Promise<void> {
  const rows = await receivablesRepository.installmentsOf(trx, sale.payment_id, deps.lock);
  if (rows.length === 0) throw new Error(`payment ${sale.payment_id} has no receivables to refund`);
  const open = rows.filter((r) => r.received_status === 'A' && r.installment_status !== 'C');
  // Installment values are whole cents (10,4 values of cents x 100): the shares are too.
  const shares = prorate(amountCents, open.map((r) => BigInt(r.installment_value) / 100n));
  for (const [i, row] of open.entries()) {
    if (shares[i] === 0n) continue;
    const reduced = reduceInstallment(
      {
        installmentValue: BigInt(row.installment_value),
        mdrValue: BigInt(row.mdr_value),
        mdrRate: BigInt(row.mdr_tax),
        trnFee: BigInt(row.trn_fee_installment),
        antifraudFee: BigInt(row.af_fee_installment),
        prepaymentValue: BigInt(row.prepayment_value),
      },
      shares[i] * 100n,
    );
    const fields = {
      installment_value: Number(reduced.installmentValue),
      mdr_value: Number(reduced.mdrValue),
      prepayment_value: Number(reduced.prepaymentValue),
      received_value: Number(reduced.receivedValue),
    };
    if (!(await receivablesRepository.reduce(trx, Number(row.id), fields))) throw new Error(`installment ${row.installment_number} of ${sale.payment_id} changed while it was refunded`);
  }
  const rest = amountCents - shares.reduce((sum, s) => sum + s, 0n);
  if (rest > 0n) await insertDebit(trx, deps, rows[0], debitOf(rest * 100n, BigInt(rows[0].mdr_tax)));
}

/**
 * A refund recorded made that its party then reports not made (the sandbox PSP plays a Pix
 * return failing after it was answered): what the refund took is given back as the mirror of its
 * debit, a positive record of the sale on the account's next receipt day, settled with that
 * day's receipts. The reduced installments are left as they are: the credit makes up for them.
 */
export async function creditRefundBack(trx: Executor, deps: RefundMoneyDeps, sourceId: string, amountCents: bigint): Promise<void> {
  const rows = await receivablesRepository.installmentsOf(trx, sourceId, deps.lock);
  if (rows.length === 0) throw new Error(`sale ${sourceId} has no receivables to credit`);
  const debit = debitOf(amountCents * 100n, BigInt(rows[0].mdr_tax));
  await insertDebit(trx, deps, rows[0], { installmentValue: -debit.installmentValue, mdrValue: -debit.mdrValue, receivedValue: -debit.receivedValue });
}

/** A debit's figures (10,4, all negative or zero; positive for a credit back). */
export interface DebitFigures {
  installmentValue: bigint;
  mdrValue: bigint;
  receivedValue: bigint;
}

/**
 * Writes a debit record of the sale (`sale` is any of its installments) on the account's next
 * receipt day after today, or the next business day when nothing is due, and makes sure that
 * day's sweep runs (it settles the debit with the day's receipts).
 */
export async function insertDebit(trx: Executor, deps: RefundMoneyDeps, sale: ReceivableRow, figures: DebitFigures): Promise<void> {
  const date = (await receivablesRepository.nextOpenDate(trx, Number(sale.account_number), deps.today)) ?? businessDayAfter(deps.today);
  await receivablesRepository.insert(trx, [debitRow(sale, figures, date)]);
  await deps.scheduleSweep(trx, date);
}

/** The debit record, after the sale's own record (installment 0, receivedType D). */
function debitRow(sale: ReceivableRow, debit: DebitFigures, date: string): Insertable<ReceivablesTable> {
  return {
    merchant_id: sale.merchant_id,
    account_number: sale.account_number,
    source_type: sale.source_type,
    source_id: sale.source_id,
    transaction_at: sale.transaction_at,
    terminal: sale.terminal,
    card_number: sale.card_number,
    card_type: sale.card_type,
    card_name: sale.card_name,
    cod_auth: sale.cod_auth,
    nsu: sale.nsu,
    installment_number: 0,
    installments_count: sale.installments_count,
    installment_value: Number(debit.installmentValue),
    transaction_total_value: sale.transaction_total_value,
    installment_status: 'A',
    mdr_value: Number(debit.mdrValue),
    mdr_tax: sale.mdr_tax,
    // The fees are the sale's and are not given back: none on the debit.
    trn_fee_installment: 0,
    trn_fee_transaction: sale.trn_fee_transaction,
    af_fee_installment: 0,
    af_fee_transaction: sale.af_fee_transaction,
    prepayment_value: 0,
    prepayment_tax: 0,
    received_value: Number(debit.receivedValue),
    expected_date: date,
    effective_date: null,
    receipt_date: date,
    received_type: 'D',
    received_status: 'A',
    reference: sale.reference,
    splits: sale.splits,
  };
}
