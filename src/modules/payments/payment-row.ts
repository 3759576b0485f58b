import { declineCategoryOf } from '../../domain/decline-category.js';
import { RETURN_MESSAGES } from '../../acquirer/types.js';
import { maskPan } from '../../domain/cards.js';
import type { Pricing } from '../../domain/fees.js';
import { saleSplitShares } from '../../domain/split.js';
import { knownThreeDs } from '../../domain/three-ds.js';
import type { Executor } from '../../db/connection.js';
import type { ChargeableCard } from '../cards/service.js';
import type { PaymentDeps } from './deps.js';
import type { PaymentRow } from './repository.js';
import type { ParsedSplit } from './request-rules.js';
import type { PaymentBody, PaymentResult } from './schemas.js';
import { notAuthenticatedMessage, threeDsAnswer, type ThreeDsPlan, type ThreeDsState } from './three-ds-state.js';

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

/** Who a new payment is for, and the ids and times it is recorded under. */
export interface NewRowOf {
  payer: { merchantId: string; accountNumber: number };
  body: PaymentBody;
  splits: ParsedSplit[];
  card: ChargeableCard;
  paymentId: string;
  billingId: string | null;
  recoverAt: string | null;
  now: Date;
  /** What 3-D Secure asks of this payment (a single payment's; a billing's has none). */
  plan?: ThreeDsPlan;
}

/**
 * New payments' rows, assessed by anti-fraud (in one statement) and priced for their splits
 * (the rule: src/domain/split.ts): Pending, or Denied by anti-fraud.
 */
export async function assessedRows(ctx: PaymentDeps, executor: Executor, payments: readonly NewRowOf[]): Promise<PaymentRow[]> {
  const assessments = await ctx.antifraud.assessMany(
    executor,
    payments.map(({ payer, body, card, plan }) => {
      const customer = body.customer;
      return {
        merchantId: payer.merchantId,
        amount: body.payment.amount,
        cardFingerprint: card.fingerprint,
        browserContext: plan?.kind === 'authenticate',
        customer: customer && { documentNumber: customer.documentNumber, email: customer.email, ipAddress: customer.ipAddress, country: customer.country },
      };
    }),
  );
  const rows: PaymentRow[] = [];
  for (const [i, p] of payments.entries()) {
    const pricing = p.splits.length ? await ctx.settlement.pricing.get(executor, p.payer.merchantId) : undefined;
    // The merchant's anti-fraud settings may ask the issuer for a challenge; a mandated one stays mandated.
    if (assessments[i]!.challenge && p.plan?.kind === 'authenticate' && p.plan.state.authenticationType !== '04') p.plan.state.authenticationType = '03';
    rows.push(
      newPaymentRow({
        paymentId: p.paymentId,
        merchantId: p.payer.merchantId,
        accountNumber: p.payer.accountNumber,
        body: p.body,
        card: p.card,
        assessment: assessments[i],
        splits: pricing ? storedSplits(p.splits, p.body.payment, pricing) : [],
        billingId: p.billingId,
        at: p.now.toISOString(),
        // Set with the insert: should we die before the send, the settle window runs from here.
        sentAt: ctx.clock.wallNow().toISOString(),
        recoverAt: p.recoverAt,
        threeDs: p.plan ? knownThreeDs(p.plan, p.card.brand) : undefined,
      }),
    );
  }
  return rows;
}

/** The splits as the row keeps them: each share in cents, under the merchant's pricing at the moment of the sale. */
function storedSplits(splits: ParsedSplit[], payment: { amount: number; installments: number }, pricing: Pricing): StoredSplit[] {
  const shares = saleSplitShares(splits, BigInt(payment.amount), payment.installments, pricing);
  return splits.map((s, i) => ({ documentNumberBeneficiary: s.documentNumberBeneficiary, type: s.type, percent: Number(s.percent) / 100, amount: Number(shares[i]) }));
}

interface NewPayment {
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
function newPaymentRow(p: NewPayment): PaymentRow {
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
