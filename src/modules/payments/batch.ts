import type { ReplacementCard } from '../../acquirer/types.js';
import type { Executor } from '../../db/connection.js';
import { ApiError } from '../../http/errors.js';
import { failureError, reportOutcome, unknownError, type Authorizations, type Sent } from './authorization.js';
import { chargeableVault, checkCardAgreement, type ChargeableCard } from './card-source.js';
import type { PaymentDeps } from './deps.js';
import { newPaymentRow, splitShares, toPaymentResult } from './payment-row.js';
import { paymentsRepository, type PaymentRow } from './repository.js';
import { checkPaymentRules, type ParsedSplit } from './request-rules.js';
import type { PaymentBody, PaymentResult } from './schemas.js';
import { settleKnown, type ThreeDsPlan } from './three-ds-state.js';

export interface Payer {
  merchantId: string;
  accountNumber: number;
}

/** `newCard`: the acquirer declined a recurring charge with the card's replacement (Renova Fácil); the caller may store it. */
export type CreateOutcome = { status: 201; body: PaymentResult; newCard?: ReplacementCard } | { status: 502; error: ApiError };

/** A payment of a batch: a billing's charge of a stored card, under the id its claim recorded. */
export interface BatchPayment {
  payer: Payer;
  body: PaymentBody;
  billingId: string;
  paymentId: string;
}

/** A batch payment whose id another run wrote first (a twin of the same claim): that run owns its acquirer call. */
export const TAKEN = { status: 'taken' } as const;
export type BatchOutcome = CreateOutcome | typeof TAKEN | Error;

/** Who the new row is for, and the ids and times it is recorded under. */
interface NewRowOf {
  payer: Payer;
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

/** New payments' rows, assessed by anti-fraud (in one statement) and priced for their splits: Pending, or Denied by anti-fraud. */
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
        splits: pricing ? splitShares(p.splits, p.body.payment.amount, p.body.payment.installments, pricing) : [],
        billingId: p.billingId,
        at: p.now.toISOString(),
        // Set with the insert: should we die before the send, the settle window runs from here.
        sentAt: ctx.clock.wallNow().toISOString(),
        recoverAt: p.recoverAt,
        threeDs: p.plan ? settleKnown(p.plan, p.card.brand) : undefined,
      }),
    );
  }
  return rows;
}

/** What a sent payment answers its caller: 201, or 502 for an unknown outcome or an acquirer failure (96, nothing charged). */
export function outcomeOf(sent: Sent): CreateOutcome {
  // No answer and no record found at once: the recovery settles it from the acquirer's record.
  if (!sent.known) return { status: 502, error: unknownError(sent.row.payment_id) };
  if (sent.row.status === 'Denied' && sent.row.return_code === '96') return { status: 502, error: failureError(sent.row) };
  return { status: 201, body: toPaymentResult(sent.row), ...(sent.newCard ? { newCard: sent.newCard } : {}) };
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/**
 * The payments of a billing batch, made together: the stored cards read in one statement, the
 * Pending rows inserted in one, every authorization sent at once, and the outcomes recorded in
 * one (./authorization.ts `sendMany`). Each payment keeps the single payment's guarantees: its
 * row is committed before its acquirer call, under its id as the idempotency key. Answers each
 * payment's outcome, `TAKEN`, or the error it met (an ApiError < 500: refused before any row).
 */
export async function createMany(ctx: PaymentDeps, authorizations: Authorizations, items: readonly BatchPayment[], onSettled: () => void): Promise<BatchOutcome[]> {
  const results: BatchOutcome[] = items.map(() => new Error('not made'));
  const db = ctx.database.db;
  const cards = await ctx.cards.loadVaultCards(
    db,
    items.flatMap(({ payer, body }) => (body.cardInfo.vaultId === undefined ? [] : [{ merchantId: payer.merchantId, vaultId: body.cardInfo.vaultId }])),
  );
  const now = ctx.clock.now();
  const ready = items.flatMap((item, index) => {
    try {
      const splits = checkPaymentRules(item.body);
      const stored = item.body.cardInfo.vaultId === undefined ? undefined : cards.get(item.body.cardInfo.vaultId);
      if (!stored) throw new ApiError(404, 'not_found', 'cardInfo.vaultId not found.');
      const card = checkCardAgreement(chargeableVault(stored), item.body.cardInfo);
      return [{ index, card, of: { ...item, splits, card, recoverAt: null, now } }];
    } catch (error) {
      results[index] = asError(error);
      return [];
    }
  });
  const assessed = await assessedRows(ctx, db, ready.map((r) => r.of));
  const rows = ready.map(({ index, card }, i) => ({ index, card, row: assessed[i] }));
  // Denied by anti-fraud: settled at the insert with its event, never sent (rare: each alone).
  for (const { index, row } of rows.filter(({ row }) => row.status === 'Denied')) {
    try {
      await paymentsRepository.insertSettled(ctx.database, db, row);
      onSettled();
      reportOutcome(ctx, row);
      results[index] = { status: 201, body: toPaymentResult(row) };
    } catch (error) {
      results[index] = asError(error);
    }
  }
  const pending = rows.filter(({ row }) => row.status === 'Pending');
  const inserted = await paymentsRepository.insertMany(db, pending.map(({ row }) => row));
  const going = pending.filter(({ index, row }) => {
    if (!inserted.has(row.payment_id)) results[index] = TAKEN;
    return inserted.has(row.payment_id);
  });
  const sent = await authorizations.sendMany(going);
  going.forEach(({ index }, i) => {
    const one = sent[i];
    results[index] = one instanceof Error ? one : outcomeOf(one);
  });
  return results;
}
