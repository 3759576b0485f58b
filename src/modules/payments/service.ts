import { randomUUID } from 'node:crypto';
import type { Acquirer, AuthorizeResult, ReturnCode } from '../../acquirer/types.js';
import { RETURN_MESSAGES } from '../../acquirer/types.js';
import type { AppContext } from '../../context.js';
import { maskPan } from '../../domain/cards.js';
import { creditNetCents, splitShareCents, type Pricing } from '../../domain/fees.js';
import { ApiError, conflict, notFound } from '../../http/errors.js';
import { checkCardAgreement, decryptedCardOf, storedCardOf, type ChargeableCard } from './card-source.js';
import { paymentsRepository, insertEvent, type PaymentRow } from './repository.js';
import { checkPaymentRules, type ParsedSplit } from './rules.js';
import type { PaymentBody, PaymentResult } from './schemas.js';

export const RECOVER_JOB = 'payment.recover';
/** A payment still Pending this long after its insert lost its acquirer answer (a crash): recover it. */
const RECOVER_AFTER_MS = 2 * 60 * 1000;

/** What the payment service uses of the process's services. */
export type PaymentDeps = Pick<AppContext, 'database' | 'clock' | 'logger' | 'cards' | 'antifraud' | 'queue' | 'settlement'>;

export interface Payer {
  merchantId: string;
  accountNumber: number;
}

export type CreateOutcome = { status: 201; body: PaymentResult } | { status: 502; error: ApiError };

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
 * fees under its pricing at the moment of the sale.
 */
function shares(splits: ParsedSplit[], amount: number, installments: number, pricing: Pricing): StoredSplit[] {
  const gross = BigInt(amount);
  const net = creditNetCents(pricing, gross, installments);
  return splits.map((s) => ({
    documentNumberBeneficiary: s.documentNumberBeneficiary,
    type: s.type,
    percent: Number(s.percent) / 100,
    amount: Number(splitShareCents(s.type === 'bruto' ? gross : net, s.percent)),
  }));
}

/**
 * Card payments (contract section 6). The local record is written first; the acquirer is
 * called outside any transaction with the payment id as its idempotency key; the outcome is
 * recorded after. A crash in between leaves the payment Pending with a recovery job that asks
 * the acquirer what happened under that key: nothing is ever authorized twice.
 */
export class PaymentService {
  constructor(
    private readonly ctx: PaymentDeps,
    private readonly acquirer: Acquirer,
  ) {}

  /**
   * `extra.billingId` links a recurrence charge to its billing. `extra.paymentId` lets such a
   * caller fix the id before the call (it records it first): the id is the primary key and the
   * acquirer's idempotency key, so a retried call with it can never make a second payment.
   */
  async create(payer: Payer, body: PaymentBody, extra: { billingId?: string; paymentId?: string } = {}): Promise<CreateOutcome> {
    const { ctx } = this;
    const splits = checkPaymentRules(body);
    const encrypted = await decryptedCardOf(ctx, body.cardInfo);
    const paymentId = extra.paymentId ?? randomUUID();
    const now = ctx.clock.now();
    const at = now.toISOString();

    const { row, card } = await ctx.database.db.transaction().execute(async (trx) => {
      const resolved = encrypted ?? (await storedCardOf(ctx, trx, payer.merchantId, body.cardInfo));
      if (!resolved) throw new ApiError(400, 'cardInfo', 'Send exactly one card source: numberToken, encryptedCard or vaultId.');
      const card = checkCardAgreement(resolved, body.cardInfo);
      const customer = body.customer;
      const assessment = await ctx.antifraud.assess(trx, {
        merchantId: payer.merchantId,
        amount: body.payment.amount,
        cardFingerprint: card.fingerprint,
        customer: customer && {
          documentNumber: customer.documentNumber,
          email: customer.email,
          ipAddress: customer.ipAddress,
          country: customer.country,
        },
      });
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
        cardholder_name: body.cardInfo.cardholderName,
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
      };
      await paymentsRepository.insert(trx, row);
      if (rejected) {
        // A rejected payment never reaches the acquirer.
        await insertEvent(trx, row, '', 'Denied', at);
      } else {
        await ctx.queue.enqueue(trx, {
          kind: RECOVER_JOB,
          payload: { paymentId },
          runAt: new Date(now.getTime() + RECOVER_AFTER_MS),
          dedupeKey: `${RECOVER_JOB}:${paymentId}`,
        });
      }
      return { row, card };
    });
    if (row.status === 'Denied') return { status: 201, body: toPaymentResult(row) };

    let result: AuthorizeResult;
    try {
      result = await this.authorize(row, card);
    } catch (error) {
      // No answer: the acquirer may or may not have authorized. The recovery job will ask it.
      ctx.logger.warn({ paymentId, err: error instanceof Error ? error.message : String(error) }, 'acquirer did not answer');
      return {
        status: 502,
        error: new ApiError(502, 'acquirer_unavailable', `The acquirer did not answer; payment ${paymentId} stays Pending and is resolved automatically.`),
      };
    }
    const recorded = await this.recordOutcome(row, result);
    if (result.outcome === 'failed') {
      return {
        status: 502,
        error: new ApiError(502, 'acquirer_failure', `The acquirer could not process payment ${paymentId} (returnCode 96); nothing was charged.`),
      };
    }
    return { status: 201, body: toPaymentResult(recorded) };
  }

  private authorize(row: PaymentRow, card: ChargeableCard): Promise<AuthorizeResult> {
    return this.acquirer.authorize(
      {
        merchantId: row.merchant_id,
        amount: Number(row.amount),
        installments: row.installments,
        productType: row.product_type as 'avista' | 'lojista',
        card: { pan: card.pan, brand: card.brand, expMonth: card.expMonth, expYear: card.expYear, cvv: card.cvv, holderName: row.cardholder_name },
        forcedReturnCode: (card.forcedReturnCode ?? undefined) as ReturnCode | undefined,
      },
      { idempotencyKey: row.payment_id },
    );
  }

  /**
   * Records the acquirer's answer for a Pending payment, with its event, and drops the recovery
   * job. Approved + anti-fraud Review = Blocked (authorized, held for the operator's review).
   */
  async recordOutcome(row: PaymentRow, result: AuthorizeResult): Promise<PaymentRow> {
    const { ctx } = this;
    const at = ctx.clock.now().toISOString();
    const status = result.outcome === 'approved' ? (row.antifraud_decision === 'Review' ? 'Blocked' : 'Authorized') : 'Denied';
    const fields = {
      return_code: result.returnCode,
      return_message: result.returnMessage,
      authorization_code: result.outcome === 'approved' ? result.authorizationCode : null,
      nsu: result.outcome === 'failed' ? null : result.nsu,
      acquirer_reference: result.outcome === 'failed' ? null : result.acquirerReference,
    };
    const moved = await ctx.database.db.transaction().execute(async (trx) => {
      const moved = await paymentsRepository.transition(trx, row, 'Pending', status, at, fields);
      // Receivables are created with the authorization, in its transaction (contract section 9).
      if (moved) await ctx.settlement.onPaymentTransition(trx, { ...row, ...fields, status, updated_at: at }, 'Pending', status);
      await trx.deleteFrom('jobs').where('dedupe_key', '=', `${RECOVER_JOB}:${row.payment_id}`).where('status', '=', 'pending').execute();
      return moved;
    });
    // The hot path knows the new row; only a lost race (the recovery job got there first) re-reads it.
    if (moved) return { ...row, ...fields, status, updated_at: at };
    return (await paymentsRepository.find(ctx.database.db, row.payment_id))!;
  }

  /** The recovery job: settles a payment whose acquirer answer was lost. */
  async recover(paymentId: string): Promise<void> {
    const row = await paymentsRepository.find(this.ctx.database.db, paymentId);
    if (!row || row.status !== 'Pending') return;
    const known = await this.acquirer.lookup(paymentId);
    // The acquirer never received it: nothing was charged, so the payment failed.
    await this.recordOutcome(row, known ?? { outcome: 'failed', returnCode: '96', returnMessage: 'The acquirer never received the authorization' });
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
    const result = await this.acquirer.cancel(
      { acquirerReference: row.acquirer_reference!, amount: Number(row.amount) },
      { idempotencyKey: `cancel:${paymentId}` },
    );
    if (result.outcome === 'failed') throw new ApiError(502, 'acquirer_failure', `The acquirer could not cancel payment ${paymentId}.`);
    const moved = await ctx.database.db
      .transaction()
      .execute(async (trx) => {
        const moved = await paymentsRepository.transition(trx, row, row.status, 'Canceled', ctx.clock.now().toISOString());
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
        const moved = await paymentsRepository.transition(trx, row, 'Blocked', 'Authorized', ctx.clock.now().toISOString());
        if (moved) await ctx.settlement.onPaymentTransition(trx, row, 'Blocked', 'Authorized');
        return moved;
      });
    if (!moved) throw conflict('The payment changed status meanwhile.');
    return toPaymentResult((await paymentsRepository.find(ctx.database.db, paymentId))!);
  }
}
