import type { ReplacementCard } from '../../acquirer/types.js';
import { isCallerError } from '../../domain/errors.js';
import { timeOrderedUuid } from '../../ids.js';
import type { CardUpdate } from '../cards/card-updates.js';
import type { PaymentBody } from '../payments/schemas.js';
import type { ChargeState } from './billings-repository.js';
import type { SubscriptionSubject } from './events.js';
import type { Clock } from '../../clock.js';
import type { CardService } from '../cards/service.js';
import type { PaymentService } from '../payments/service.js';
import type { DeclineCategory } from '../../domain/decline-category.js';

/** What a replacement charge needs (a part of ChargeDeps). */
interface ReplacementDeps {
  clock: Clock;
  cards: Pick<CardService, 'replaceCard'>;
  payments: Pick<PaymentService, 'create' | 'find'>;
}

/** An attempt's result (charge-attempt.ts AttemptResult), as far as a replacement charge makes one. */
interface Result {
  payment: { status: string; returnCode: string | null; declineCategory?: DeclineCategory | null } | null;
  returnCode: string | null;
  returnMessage: string;
  paymentId: string | null;
  declineCategory?: DeclineCategory | null;
  cardUpdated?: CardUpdate;
}

/**
 * The issuer answered a billing's charge with the card's replacement (Cielo's Renova Fácil,
 * `Payment.NewCard`; the sandbox's replaced test card): the stored card is replaced in place
 * (same vaultId, `card.updated`), and the billing is charged again at once with it, once: a
 * second replacement is not followed. The attempt's result is the second charge's, naming the
 * update. Should the replacement not be a usable card, the first answer stands.
 */
export async function chargeReplacement<R extends Result>(ctx: ReplacementDeps, state: ChargeState, body: PaymentBody, first: R, newCard: ReplacementCard): Promise<Result> {
  const update = await ctx.cards.replaceCard(state.merchant_id, state.vault_id, newCard, 'account_updater');
  if (!update) return first;
  const paymentId = timeOrderedUuid(ctx.clock.now());
  const note = `The issuer replaced the card (ending ${update.oldLast4}, now ${update.newLast4}); charged again with the new card.`;
  try {
    const outcome = await ctx.payments.create({ merchantId: state.merchant_id, accountNumber: Number(state.account_number) }, body, { billingId: state.billing_id, paymentId });
    if (outcome.kind === 'recorded') {
      const { status, returnCode, returnMessage, declineCategory } = outcome.payment;
      return { payment: { status, returnCode, declineCategory }, returnCode, returnMessage: `${returnMessage ?? status} (${note})`, paymentId, declineCategory: declineCategory ?? null, cardUpdated: update };
    }
  } catch (error) {
    if (!isCallerError(error)) throw error;
    return { ...first, cardUpdated: update };
  }
  // Failed or unknown: the row tells an acquirer failure from a lost answer; a lost one is left to the payment's own record.
  const row = await ctx.payments.find(paymentId);
  if (!row) return { ...first, cardUpdated: update };
  return { payment: { status: row.status, returnCode: row.return_code }, returnCode: row.return_code, returnMessage: `${row.return_message ?? row.status} (${note})`, paymentId, cardUpdated: update };
}

/** subscription.card_updated, for a subscription whose stored card was replaced. */
export function cardUpdatedEvent(s: SubscriptionSubject, update: CardUpdate, at: string) {
  return {
    merchantId: s.merchant_id,
    accountNumber: Number(s.account_number),
    type: 'subscription.card_updated' as const,
    at,
    data: { subscriptionId: s.subscription_id, planId: s.plan_id, vaultId: update.vaultId, oldLast4: update.oldLast4, newLast4: update.newLast4, source: update.source },
  };
}
