import { addDays, isIsoDate, toIsoDate } from '../../domain/calendar.js';
import { invalid } from '../../domain/errors.js';
import { timeOrderedUuid } from '../../ids.js';
import type { AccountEvent } from '../webhooks/outbox.js';
import { brandNotation, reasonOf } from './reason-codes.js';
import type { DisputeRow } from './repository.js';
import type { DisputeStatus, DisputeSummary } from './schemas.js';

// A dispute's row as it is made, shown and announced: the new row, its API summary, the webhook of its transaction.

/** Days a merchant has to answer, when the acquirer's notice names no deadline. */
const DEFAULT_RESPONSE_DAYS = 10;

/**
 * A chargeback as the acquirer reports it. The operator's API and the sandbox make one today;
 * an acquirer's chargeback feed (Cielo's notifications) would make the same, with its source.
 */
export interface ChargebackNotice {
  /** A card payment's chargeback; or, with `pixChargeId`, a MED claim against a received Pix. */
  paymentId?: string;
  pixChargeId?: string;
  reasonCode: string;
  amount?: number;
  respondBy?: string;
  source: 'operator' | 'sandbox' | 'acquirer';
}

export function summaryOf(row: DisputeRow): DisputeSummary {
  return {
    disputeId: row.dispute_id,
    type: row.type,
    paymentId: row.type === 'pix_med' ? null : row.payment_id,
    pixChargeId: row.type === 'pix_med' ? row.payment_id : null,
    status: row.status as DisputeStatus,
    reasonCode: row.reason_code,
    brandReasonCode: brandNotation(row.brand, row.reason_code),
    reasonMessage: reasonOf(row.brand, row.reason_code)?.message ?? row.reason_code,
    liabilityShift: Boolean(row.liability_shift),
    amount: Number(row.amount),
    respondBy: row.respond_by,
    createdAt: row.created_at,
    closedAt: row.closed_at,
    refundId: row.refund_id ?? null,
  };
}


/** A new dispute's row, NeedsResponse; `respondBy` defaults to DEFAULT_RESPONSE_DAYS from today and may not be past. */
export function newDisputeRow(now: Date, notice: ChargebackNotice, fields: Pick<DisputeRow, 'type' | 'payment_id' | 'merchant_id' | 'account_number' | 'brand' | 'amount'>): DisputeRow {
  const today = toIsoDate(now);
  const at = now.toISOString();
  const respondBy = notice.respondBy ?? addDays(today, DEFAULT_RESPONSE_DAYS);
  if (!isIsoDate(respondBy) || respondBy < today) throw invalid('respondBy', 'respondBy must be a date (YYYY-MM-DD), today or later.');
  return {
    dispute_id: timeOrderedUuid(now),
    ...fields,
    reason_code: notice.reasonCode,
    respond_by: respondBy,
    status: 'NeedsResponse',
    source: notice.source,
    created_at: at,
    updated_at: at,
    closed_at: null,
    refund_id: null,
    liability_shift: 0,
  };
}

/** The seed's TransactionStatus webhook of a disputed transaction's change (installment 0: the whole transaction). */
export function transactionStatus(row: DisputeRow, payment: { nsu: string | null; authorization_code: string | null }, oldValue: string, newValue: string, at: string): AccountEvent[] {
  return [{ merchantId: row.merchant_id, accountNumber: Number(row.account_number), type: 'TransactionStatus', nsu: payment.nsu ?? '', codAuth: payment.authorization_code ?? '', installmentNumber: 0, oldValue, newValue, at }];
}
