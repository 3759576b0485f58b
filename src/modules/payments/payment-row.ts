import { declineCategoryOf } from '../../domain/decline-category.js';
import { RETURN_MESSAGES } from '../../acquirer/types.js';
import { maskPan } from '../../domain/cards.js';
import type { Pricing } from '../../domain/fees.js';
import { saleSplitBases, splitBase, splitShare } from '../../domain/split.js';
import type { ChargeableCard } from './card-source.js';
import type { PaymentRow } from './repository.js';
import type { ParsedSplit } from './request-rules.js';
import type { PaymentBody, PaymentResult } from './schemas.js';
import { notAuthenticatedMessage, threeDsAnswer, type ThreeDsState } from './three-ds-state.js';

interface StoredSplit {
  documentNumberBeneficiary: string;
  type: string;
  percent: number;
  amount: number;
}

/** The API's answer for a payment row. */
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
    refundedAmount: Number(row.refunded_amount),
    ...(row.three_ds ? { threeDs: threeDsAnswer(row.three_ds) } : {}),
    createdAt: row.created_at,
    // A declined (or failed) payment says whether its card may be tried again; anti-fraud's own refusal reads its code (59).
    ...(row.status === 'Denied' ? { declineCategory: (row.decline_category ?? declineCategoryOf(row.return_code) ?? 'final') as 'retryable' | 'final' } : {}),
  };
}

/**
 * Split shares in cents: bruto on the amount, liquido on what the merchant nets after MDR and
 * fees under its pricing at the moment of the sale (the rule: src/domain/split.ts).
 */
export function splitShares(splits: ParsedSplit[], amount: number, installments: number, pricing: Pricing): StoredSplit[] {
  const bases = saleSplitBases(pricing, BigInt(amount), installments);
  return splits.map((s) => ({
    documentNumberBeneficiary: s.documentNumberBeneficiary,
    type: s.type,
    percent: Number(s.percent) / 100,
    amount: Number(splitShare(splitBase(s.type, bases), s.percent)),
  }));
}

export interface NewPayment {
  paymentId: string;
  merchantId: string;
  accountNumber: number;
  body: PaymentBody;
  card: ChargeableCard;
  assessment: { decision: string; score: number; reasons: string[] };
  splits: StoredSplit[];
  billingId: string | null;
  /** Business time. */
  at: string;
  /** Wall-clock time of the send: the acquirer's settle window runs from here. */
  sentAt: string;
  /** Business time: when the recovery sweep asks about it if it is still Pending (null: a billing's payment). */
  recoverAt: string | null;
  /** The payment's 3-D Secure as known at its insert (an external authentication's is settled already). */
  threeDs?: ThreeDsState;
}

/**
 * A new payment's row: Pending, on its way to the acquirer, or Denied by anti-fraud (59, the
 * acquirer never sees it). Only the mask of the card is kept.
 */
export function newPaymentRow(p: NewPayment): PaymentRow {
  const { body, card } = p;
  const customer = body.customer;
  const rejected = p.assessment.decision === 'Reject';
  // An external authentication whose eci says "not authenticated" is not sent to the acquirer.
  const unauthenticated = !rejected && p.threeDs?.status === 'Fail';
  const denied = rejected || unauthenticated;
  return {
    payment_id: p.paymentId,
    merchant_id: p.merchantId,
    account_number: p.accountNumber,
    status: denied ? 'Denied' : 'Pending',
    amount: body.payment.amount,
    installments: body.payment.installments,
    product_type: body.payment.productType,
    transaction_type: body.payment.transactionType,
    brand: card.brand,
    masked_card_number: maskPan(card.pan),
    card_fingerprint: card.fingerprint,
    card_source: card.source,
    vault_id: card.vaultId ?? null,
    cardholder_name: body.cardInfo.cardholderName,
    reference_transaction: body.referenceTransaction ?? null,
    url_callback: body.urlCallBack ?? null,
    code_anti_fraud: body.sellerInfo.codeAntiFraud,
    customer: customer ? JSON.stringify(customer) : null,
    customer_document: customer?.documentNumber ?? null,
    customer_email: customer?.email?.toLowerCase() ?? null,
    customer_ip: customer?.ipAddress ?? null,
    antifraud_decision: p.assessment.decision,
    antifraud_score: p.assessment.score,
    antifraud_reasons: JSON.stringify(p.assessment.reasons),
    return_code: rejected ? '59' : unauthenticated ? '05' : null,
    return_message: rejected ? RETURN_MESSAGES['59'] : unauthenticated ? notAuthenticatedMessage(`the external authentication's eci ${p.threeDs!.eci} says the cardholder was not authenticated`) : null,
    decline_category: null,
    network_reference: null,
    authorization_code: null,
    nsu: null,
    acquirer_reference: null,
    splits: JSON.stringify(p.splits),
    billing_id: p.billingId,
    created_at: p.at,
    updated_at: p.at,
    acquirer_sent_at: denied ? null : p.sentAt,
    refunded_amount: 0,
    open_dispute_id: null,
    charged_back_amount: 0,
    recover_at: denied ? null : p.recoverAt,
    three_ds: p.threeDs ? JSON.stringify(p.threeDs) : null,
    threeds_transaction_id: null,
  };
}
