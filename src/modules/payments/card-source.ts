import type { PaymentDeps } from './deps.js';
import type { Executor } from '../../db/connection.js';
import { isValidCvv } from '../../domain/cards.js';
import type { Card } from '../cards/card-data.js';
import type { VaultCard } from '../cards/service.js';
import { ApiError } from '../../http/errors.js';
import type { PaymentBody } from './schemas.js';

/** A card ready for one authorization. The PAN and CVV live only in memory, for this request. */
export interface ChargeableCard extends Card {
  source: 'token' | 'encrypted' | 'vault';
  vaultId?: string;
  /** Sandbox: the stored card's forced outcome. */
  forcedReturnCode?: string | null;
}

/**
 * Resolves the one card source of a payment. The encrypted card is decrypted before the
 * transaction (RSA is CPU work, not database work); a numberToken is consumed inside the
 * payment's transaction, so a payment that fails validation does not burn it.
 */
export async function decryptedCardOf(ctx: PaymentDeps, cardInfo: PaymentBody['cardInfo']): Promise<ChargeableCard | undefined> {
  if (cardInfo.encryptedCard === undefined) return undefined;
  // Brand and securityCode of cardInfo are checked after, for every source alike.
  const card = await ctx.cards.cardFromEncrypted(cardInfo.encryptedCard);
  return { ...card, source: 'encrypted' };
}

export async function storedCardOf(
  ctx: PaymentDeps,
  executor: Executor,
  merchantId: string,
  cardInfo: PaymentBody['cardInfo'],
): Promise<ChargeableCard | undefined> {
  if (cardInfo.vaultId !== undefined) {
    return chargeableVault(await ctx.cards.loadVaultCard(executor, merchantId, cardInfo.vaultId, 'cardInfo.vaultId'));
  }
  if (cardInfo.numberToken !== undefined) {
    const card = await ctx.cards.consumeToken(executor, merchantId, cardInfo.numberToken, 'cardInfo.numberToken');
    return { ...card, source: 'token' };
  }
  return undefined;
}

/** A vault card as a payment charges it (its sandbox outcome forced when one is set). */
export function chargeableVault(card: VaultCard): ChargeableCard {
  return { ...card, source: 'vault', forcedReturnCode: card.sandboxReturnCode };
}

/** The payment's own `brand` and `securityCode` must agree with the card they name. */
export function checkCardAgreement(card: ChargeableCard, cardInfo: PaymentBody['cardInfo']): ChargeableCard {
  if (cardInfo.brand !== undefined && cardInfo.brand !== card.brand) {
    throw new ApiError(400, 'cardInfo.brand', `brand ${cardInfo.brand} does not match the card number.`);
  }
  if (cardInfo.securityCode !== undefined) {
    if (!isValidCvv(cardInfo.securityCode, card.brand)) {
      throw new ApiError(400, 'cardInfo.securityCode', `securityCode must have ${card.brand === 'amex' ? 4 : 3} digits for ${card.brand}.`);
    }
    return { ...card, cvv: cardInfo.securityCode };
  }
  return card;
}
