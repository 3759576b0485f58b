import type { ReplacementCard } from '../../acquirer/types.js';
import { DomainError } from '../../domain/errors.js';
import { agreeingCard } from '../cards/card-data.js';
import { chargeableVault } from '../cards/card-data.js';
import { failureError, reportOutcome, unknownError, type Authorizations, type Sent } from './authorization.js';
import type { PaymentDeps } from './deps.js';
import { assessedRows, toPaymentResult } from './payment-row.js';
import { paymentsRepository } from './repository.js';
import { checkPaymentRules } from './request-rules.js';
import type { PaymentBody, PaymentResult } from './schemas.js';

export interface Payer {
  merchantId: string;
  accountNumber: number;
}

/**
 * What making a payment came to:
 * - recorded: the payment is recorded with its state (Authorized, Denied, Blocked, or waiting for
 *   its buyer's challenge). `newCard`: the acquirer declined a recurring charge with the card's
 *   replacement (Renova Fácil); the caller may store it.
 * - failed: the acquirer failed (returnCode 96): the payment is Denied and nothing was charged.
 * - unknown: the acquirer did not answer: the payment stays Pending and the recovery settles it.
 * `failed` and `unknown` carry the error that tells the caller so (an upstream failure).
 */
export type CreateOutcome =
  | { kind: 'recorded'; payment: PaymentResult; newCard?: ReplacementCard }
  | { kind: 'failed'; error: DomainError }
  | { kind: 'unknown'; error: DomainError };

/** A payment of a batch: a billing's charge of a stored card, under the id its claim recorded. */
export interface BatchPayment {
  payer: Payer;
  body: PaymentBody;
  billingId: string;
  paymentId: string;
}

/** A batch payment whose id another run wrote first (a twin of the same claim): that run owns its acquirer call. */
export const TAKEN = { kind: 'taken' } as const;
export type BatchOutcome = CreateOutcome | typeof TAKEN | Error;

/** What a sent payment came to. */
export function outcomeOf(sent: Sent): CreateOutcome {
  // No answer and no record found at once: the recovery settles it from the acquirer's record.
  if (!sent.known) return { kind: 'unknown', error: unknownError(sent.row.payment_id) };
  if (sent.row.status === 'Denied' && sent.row.return_code === '96') return { kind: 'failed', error: failureError(sent.row) };
  return { kind: 'recorded', payment: toPaymentResult(sent.row), ...(sent.newCard ? { newCard: sent.newCard } : {}) };
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/**
 * The payments of a billing batch, made together: the stored cards read in one statement, the
 * Pending rows inserted in one, every authorization sent at once, and the outcomes recorded in
 * one (./authorization.ts `sendMany`). Each payment keeps the single payment's guarantees: its
 * row is committed before its acquirer call, under its id as the idempotency key. Answers each
 * payment's outcome, `TAKEN`, or the error it met (a caller's error, isCallerError: refused before any row).
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
      if (!stored) throw new DomainError('not_found', 'not_found', 'cardInfo.vaultId not found.');
      const card = agreeingCard(chargeableVault(stored), item.body.cardInfo);
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
      results[index] = { kind: 'recorded', payment: toPaymentResult(row) };
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
