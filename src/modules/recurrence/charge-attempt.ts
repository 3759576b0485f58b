import { AcquirerUnavailable } from '../../acquirer/types.js';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import type { JobQueue } from '../../jobs/queue.js';
import { validateExpiry } from '../../domain/cards.js';
import { declineCategoryOf, type DeclineCategory } from '../../domain/decline-category.js';
import { DomainError, isCallerError } from '../../domain/errors.js';
import type { CardService, VaultView } from '../cards/service.js';
import type { CardUpdate } from '../cards/card-updates.js';
import { chargeReplacement } from './card-replacement.js';
import type { PaymentBody } from '../payments/schemas.js';
import { TAKEN, type BatchOutcome, type PaymentService } from '../payments/service.js';
import type { ChargeState } from './billings-repository.js';
import type { PaymentSnapshot } from './charge-outcome.js';
import { chargeCents } from './plan-rules.js';
import type { PixRecurrencePort } from './pix-port.js';

/** What the recurrence module uses of the process's services: only the composition root builds it. */
export interface ChargeDeps {
  database: Database;
  clock: Clock;
  logger: Logger;
  queue: JobQueue;
  payments: Pick<PaymentService, 'create' | 'createMany' | 'cancel' | 'find' | 'settleBillingPayment' | 'relayPending'>;
  cards: Pick<CardService, 'getVault' | 'getVaults' | 'verifyStored' | 'replaceCard' | 'createVault'>;
  /** Where the hosted pages are (card update links): PUBLIC_URL. */
  publicUrl?: string;
  /** The merchant's card settings (verifyCardsOnSubscribe): the merchants module's, handed over by the root. */
  cardSettings?: (merchantId: string) => Promise<{ verifyCardsOnSubscribe: boolean }>;
  /** Pix Automático (the Pix module's recurrences): absent in contexts without Pix plans. */
  pixRecurrences?: PixRecurrencePort;
  /** BILLING_CONCURRENCY (default DEFAULT_CHARGE_CONCURRENCY). */
  chargeConcurrency?: number;
}

/**
 * The codeAntiFraud of recurring charges: the seeds' anti-fraud library runs in the payer's
 * browser, and nobody is at a browser when a billing falls due.
 */
export const RECURRENCE_ANTIFRAUD_CODE = '00000000-0000-4000-8000-000000000001';

/**
 * Billing charges a worker (or a sandbox advance) runs at once, BILLING_CONCURRENCY: each is an
 * acquirer call in flight. The default when the context does not say.
 */
export const DEFAULT_CHARGE_CONCURRENCY = 128;

/** One attempt's result: the payment it made, or why no payment was made (`payment` null). */
export interface AttemptResult {
  payment: PaymentSnapshot | null;
  returnCode: string | null;
  returnMessage: string;
  paymentId: string | null;
  /** A declined charge's category (retryable, final), from the connector's table. */
  declineCategory?: DeclineCategory | null;
  /** The stored card was replaced by the issuer's account updater before this result's charge. */
  cardUpdated?: CardUpdate;
  /** The payment is still Pending: look again after this long (the acquirer's settle window, or a recheck). */
  retryInMs?: number;
}

/** An acquirer that cannot be asked is asked again after this; the attempt is not spent. */
const UNANSWERED_RECHECK_MS = 30_000;

/** A payment a twin run is making right now is looked at again after this: its answer is due within the acquirer's timeout. */
const PENDING_TWIN_RECHECK_MS = 30_000;

const noPayment = (returnCode: string | null, returnMessage: string): AttemptResult => ({ payment: null, returnCode, returnMessage, paymentId: null, declineCategory: declineCategoryOf(returnCode) });

/**
 * Makes (or finds) the payment of a claimed attempt, under the id the claim recorded. Found:
 * a previous run of this attempt got as far as the payment and died before recording it, so
 * its outcome is read back instead of paying again. Not found: no payment row means the
 * acquirer was never called (the payment service writes its row first), so paying is safe;
 * and should a twin run race us, the id is the primary key: the loser reads the winner's row.
 */
export async function runAttempt(ctx: ChargeDeps, state: ChargeState, paymentId: string, resumed: boolean, card?: VaultView | null): Promise<AttemptResult> {
  // A fresh claim made up a new id a moment ago: no payment can carry it yet.
  const existing = resumed ? await ctx.payments.find(paymentId) : undefined;
  if (existing?.status === 'Pending') return settlePending(ctx, state, existing);
  if (existing) return fromRow(existing);

  const body = await paymentRequestOf(ctx, state, card);
  if (!isRequest(body)) return body;
  let outcome: BatchOutcome;
  try {
    outcome = await ctx.payments.create({ merchantId: state.merchant_id, accountNumber: Number(state.account_number) }, body, { billingId: state.billing_id, paymentId });
  } catch (error) {
    outcome = error instanceof Error ? error : new Error(String(error));
  }
  return resultOf(ctx, state, body, paymentId, outcome);
}

/**
 * The fresh attempts of a batch (claimed a moment ago under new payment ids), their payments
 * made together (the payment service's `createMany`). Answers each attempt's result, or the
 * error that fails its job (whose retry resumes under the claim).
 */
export async function runFreshAttempts(ctx: ChargeDeps, attempts: readonly { state: ChargeState; paymentId: string; card: VaultView | null }[]): Promise<(AttemptResult | Error)[]> {
  const results: (AttemptResult | Error)[] = [];
  const paying: { index: number; paymentId: string; body: PaymentBody; state: ChargeState }[] = [];
  for (const [index, a] of attempts.entries()) {
    const body = await paymentRequestOf(ctx, a.state, a.card);
    if (isRequest(body)) paying.push({ index, paymentId: a.paymentId, body, state: a.state });
    results[index] = isRequest(body) ? new Error('not paid') : body;
  }
  if (paying.length === 0) return results;
  const outcomes = await ctx.payments.createMany(
    paying.map(({ state, body, paymentId }) => ({ payer: { merchantId: state.merchant_id, accountNumber: Number(state.account_number) }, body, billingId: state.billing_id, paymentId })),
  );
  await Promise.all(
    paying.map(async ({ index, paymentId, state, body }, i) => {
      results[index] = await resultOf(ctx, state, body, paymentId, outcomes[i]).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    }),
  );
  return results;
}

/** An attempt's result from what making its payment came to. */
async function resultOf(ctx: ChargeDeps, state: ChargeState, body: PaymentBody, paymentId: string, outcome: BatchOutcome): Promise<AttemptResult> {
  // Refused before any payment row (the card vanished meanwhile, a rule): nothing was charged.
  if (isCallerError(outcome)) return noPayment(null, outcome.errors.map((e) => e.description).join(' '));
  if (outcome instanceof Error || outcome.kind === TAKEN.kind) {
    // A twin run (a duplicate job on another instance resuming this claim) wrote the payment
    // first: the primary key refused ours. Its run owns the acquirer call; this one looks again later.
    const twin = await ctx.payments.find(paymentId);
    if (!twin) throw outcome instanceof Error ? outcome : new Error(`payment ${paymentId} was taken and is not found`);
    return twin.status === 'Pending' ? { ...fromRow(twin), retryInMs: PENDING_TWIN_RECHECK_MS } : fromRow(twin);
  }
  if (outcome.kind === 'recorded') {
    const { status, returnCode, returnMessage, declineCategory } = outcome.payment;
    const result: AttemptResult = { payment: { status, returnCode, declineCategory }, returnCode, returnMessage: returnMessage ?? status, paymentId, declineCategory: declineCategory ?? null };
    // The issuer sent the card's replacement (account updater): stored in place, charged again at once.
    return outcome.newCard && status === 'Denied' ? chargeReplacement(ctx, state, body, result, outcome.newCard) : result;
  }
  // Failed or unknown: the row tells an acquirer failure (Denied 96, nothing charged) from a lost answer (Pending).
  const row = await ctx.payments.find(paymentId);
  if (!row) throw outcome.error;
  return fromRow(row);
}

/**
 * The payment an attempt sends, or why none is sent: checked before the acquirer is called
 * (contract section 8), a card gone from the vault, or an expired one (PaymentInvalid).
 * `read`: the stored card as a batch read it (null: gone), else it is read here.
 */
export async function paymentRequestOf(ctx: ChargeDeps, state: ChargeState, read?: VaultView | null): Promise<PaymentBody | AttemptResult> {
  const card = read !== undefined ? read : await storedCardOf(ctx, state);
  if (!card) return noPayment('14', 'The stored card is no longer in the vault; it was not charged.');
  if (expired(ctx, card.expirationMonth, card.expirationYear)) return noPayment('54', 'The stored card has expired; it was not sent to the acquirer.');
  return billingPaymentBody(state, card.cardholderName);
}

/** Checked before the acquirer is called (contract section 8): an expired stored card is PaymentInvalid. */
export function expired(ctx: Pick<ChargeDeps, 'clock'>, month: string, year: string): boolean {
  const expiry = validateExpiry(month, year, ctx.clock.now());
  return !expiry.ok || expiry.expired;
}

/** The payment a billing's attempt makes with the subscription's stored card. */
export function billingPaymentBody(state: ChargeState, cardholderName: string): PaymentBody {
  return {
    payment: { transactionType: 'credit', amount: Number(chargeCents(BigInt(state.amount))), productType: 'avista', installments: 1 },
    referenceTransaction: state.billing_id,
    sellerInfo: { codeAntiFraud: RECURRENCE_ANTIFRAUD_CODE },
    // The payment service loads and opens the stored card itself; the vault's name goes to the acquirer.
    cardInfo: { vaultId: state.vault_id, cardholderName },
  };
}

const isRequest = (found: PaymentBody | AttemptResult): found is PaymentBody => 'sellerInfo' in found;

/** An attempt's result read off its payment row. */
export function fromRow(row: { payment_id: string; status: string; return_code: string | null; return_message: string | null; decline_category?: string | null }): AttemptResult {
  const declineCategory = row.status === 'Denied' ? ((row.decline_category as DeclineCategory | null | undefined) ?? declineCategoryOf(row.return_code)) : null;
  return {
    payment: { status: row.status, returnCode: row.return_code, declineCategory },
    returnCode: row.return_code,
    returnMessage: row.return_message ?? row.status,
    paymentId: row.payment_id,
    declineCategory,
  };
}

/** The subscription's stored card as the vault shows it (name and expiry; its PAN stays sealed), or null once deleted. */
async function storedCardOf(ctx: ChargeDeps, state: ChargeState): Promise<VaultView | null> {
  try {
    return await ctx.cards.getVault(state.merchant_id, state.vault_id);
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'not_found') return null;
    throw error;
  }
}

/**
 * A resumed attempt whose payment is Pending: its run died, or its answer was lost. The
 * acquirer's record settles it; if the acquirer never received it (and nothing sent can still
 * arrive), it is sent again under the same payment id, unless the subscription stopped
 * meanwhile. Until then the attempt waits, never recorded as a decline.
 */
async function settlePending(ctx: ChargeDeps, state: ChargeState, pending: { payment_id: string; status: string; return_code: string | null; return_message: string | null }): Promise<AttemptResult> {
  try {
    const resolution = await ctx.payments.settleBillingPayment(pending.payment_id, state.sub_status === 'Active');
    if (resolution.kind !== 'unknown') return fromRow(resolution.row);
    return { ...fromRow(pending), retryInMs: resolution.retryInMs };
  } catch (error) {
    if (!(error instanceof AcquirerUnavailable)) throw error;
    ctx.logger.warn({ paymentId: pending.payment_id, billingId: state.billing_id, err: error.message }, 'acquirer not answering: billing payment still pending');
    return { ...fromRow(pending), retryInMs: UNANSWERED_RECHECK_MS };
  }
}
