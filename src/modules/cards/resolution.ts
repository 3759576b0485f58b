import type { CardBrand } from '../../domain/cards.js';
import { DomainError, invalid } from '../../domain/errors.js';
import type { Executor } from '../../db/connection.js';
import { agreeingCard, checkedCard, sealChallengeAd, sealTokenAd, sealVaultAd, type Card } from './card-data.js';
import type { CardDeps } from './deps.js';
import { cardTokensRepository as tokens, vaultCardsRepository as vault, type CardTokenRow, type VaultCardRow } from './repository.js';
import { NUMBER_TOKEN_TTL_MS } from './tokens.js';

/** A stored card named by its merchant and id. */
export interface VaultRef {
  merchantId: string;
  vaultId: string;
}

/** A stored card ready to charge: the card plus what the vault keeps beside it. */
export interface VaultCard extends Card {
  vaultId: string;
  cardholderName: string;
  /** Sandbox only: the return code every charge of this card answers (POST /sandbox/vaults/{id}/outcome). */
  sandboxReturnCode: string | null;
  /** The network's reference of the card's first charge or check, sent on merchant-initiated charges. */
  networkReference: string | null;
}

/** A card ready for one authorization. The PAN and CVV live only in memory, for this request. */
export interface ChargeableCard extends Card {
  source: 'token' | 'encrypted' | 'vault';
  vaultId?: string;
  /** Sandbox: the stored card's forced outcome. */
  forcedReturnCode?: string | null;
  /** A stored card's network reference of its first charge (null: this is its first). */
  networkReference?: string | null;
}

/** A payment's `cardInfo` as this module reads it: one card source, and the brand and securityCode sent beside it. */
export interface PaymentCardInfo {
  numberToken?: string;
  encryptedCard?: string;
  vaultId?: string;
  brand?: string;
  securityCode?: string;
}

/** The live stored cards of these refs, in one read; a card is found only for its own merchant. */
export async function liveOwned(executor: Executor, refs: readonly VaultRef[]): Promise<VaultCardRow[]> {
  if (refs.length === 0) return [];
  const rows = await vault.findLiveMany(executor, [...new Set(refs.map((r) => r.vaultId))]);
  const owner = new Map(refs.map((r) => [r.vaultId, r.merchantId]));
  return rows.filter((row) => owner.get(row.vault_id) === row.merchant_id);
}

/** A vault card as a payment charges it (its sandbox outcome forced when one is set). */
export function chargeableVault(card: VaultCard): ChargeableCard {
  return { ...card, source: 'vault', forcedReturnCode: card.sandboxReturnCode, networkReference: card.networkReference };
}

/**
 * The card a charge uses: a payment's card source resolved, stored cards opened with their
 * PAN (unsealed from DATA_KEY, bound to their row by the associated data), numberTokens used up.
 */
export class CardResolution {
  constructor(private readonly deps: CardDeps) {}

  /**
   * The card of a payment's `cardInfo`: an encryptedCard decrypted and checked (RSA is CPU work:
   * no transaction is open for it), a vault card read, or a numberToken used up in `executor`,
   * the payment's transaction, so that a payment refused on the way leaves it usable. The
   * `brand` and `securityCode` sent beside it must agree with the card. Tags are `cardInfo.*`.
   */
  async resolve(executor: Executor, merchantId: string, cardInfo: PaymentCardInfo): Promise<ChargeableCard> {
    let card: ChargeableCard;
    if (cardInfo.encryptedCard !== undefined) card = { ...(await this.cardFromEncrypted(cardInfo.encryptedCard)), source: 'encrypted' };
    else if (cardInfo.vaultId !== undefined) card = chargeableVault(await this.loadVaultCard(executor, merchantId, cardInfo.vaultId));
    else if (cardInfo.numberToken !== undefined) card = { ...(await this.consumeToken(executor, merchantId, cardInfo.numberToken)), source: 'token' };
    else throw invalid('cardInfo', 'Send exactly one card source: numberToken, encryptedCard or vaultId.');
    return agreeingCard(card, cardInfo);
  }

  /** A payment's `cardInfo.encryptedCard`, decrypted and checked (its brand and securityCode are checked after, for every source alike). */
  private async cardFromEncrypted(encryptedCard: string): Promise<Card> {
    const { keys, clock, cipher } = this.deps;
    return checkedCard(await keys.decryptCard(encryptedCard, 'cardInfo.encryptedCard'), clock.now(), 'cardInfo', cipher);
  }

  /**
   * Uses a numberToken up and answers its card (with the CVV when this instance still holds
   * it). Run it inside the payment's transaction: a rollback leaves the token usable (its CVV,
   * taken out of memory, is not put back; a retry goes without CVV). Another merchant's or an
   * unknown token is 404 and stays untouched; this merchant's expired or used one is 400.
   */
  async consumeToken(executor: Executor, merchantId: string, numberToken: string, tag = 'cardInfo.numberToken'): Promise<Card> {
    const wallNow = this.deps.clock.wallNow();
    return this.tokenCardOf(executor, merchantId, numberToken, await tokens.consume(executor, merchantId, numberToken, wallNow.toISOString()), wallNow, tag);
  }

  /**
   * A numberToken's card without using the token up (zero auth, a vault's check before the
   * token is consumed), with its CVV when this instance still holds it. 404 for another
   * merchant's or an unknown token; 400 for a used or expired one.
   */
  async peekToken(merchantId: string, numberToken: string, tag: string): Promise<Card> {
    const { database, clock, cvvs } = this.deps;
    const wallNow = clock.wallNow();
    const row = await tokens.findUsable(database.db, merchantId, numberToken, wallNow.toISOString());
    if (!row) return this.tokenCardOf(database.db, merchantId, numberToken, undefined, wallNow, tag);
    return this.openToken(row, numberToken, cvvs.peek(numberToken, wallNow));
  }

  /** The card of a consumed token, or the refusal of one that could not be consumed. */
  private async tokenCardOf(executor: Executor, merchantId: string, numberToken: string, row: CardTokenRow | undefined, wallNow: Date, tag: string): Promise<Card> {
    if (!row) {
      const known = await tokens.find(executor, merchantId, numberToken);
      if (!known) throw new DomainError('not_found', 'not_found', `${tag} not found.`);
      if (known.consumed_at !== null) throw invalid(tag, `${tag} was already used: a numberToken pays once. Tokenize the card again.`);
      throw invalid(tag, `${tag} has expired: a numberToken lives ${NUMBER_TOKEN_TTL_MS / 60000} minutes. Tokenize the card again.`);
    }
    return this.openToken(row, numberToken, this.deps.cvvs.take(numberToken, wallNow));
  }

  /** A token row's card, opened, with the CVV this instance holds for it. */
  private openToken(row: CardTokenRow, numberToken: string, cvv: string | undefined): Card {
    return {
      pan: this.deps.cipher.decrypt(row.pan_sealed, sealTokenAd(numberToken)),
      brand: row.brand as CardBrand,
      expMonth: row.exp_month,
      expYear: row.exp_year,
      ...(cvv !== undefined ? { cvv } : {}),
      bin: row.bin,
      last4: row.last4,
      panLength: row.pan_length,
      fingerprint: row.fingerprint,
    };
  }

  /**
   * For payments and subscriptions: the merchant's stored card with its PAN, or 404 when it is
   * another merchant's, unknown or deleted. Expiry is not checked here: each caller decides
   * (a subscription billing records PaymentInvalid, a payment answers 400).
   */
  async loadVaultCard(executor: Executor, merchantId: string, vaultId: string, tag = 'cardInfo.vaultId'): Promise<VaultCard> {
    return this.vaultCardOf(await vault.findLive(executor, merchantId, vaultId), tag);
  }

  /** `loadVaultCard` for a batch, in one read: the cards found, by vaultId (another merchant's, unknown or deleted ones are absent). */
  async loadVaultCards(executor: Executor, refs: readonly VaultRef[]): Promise<Map<string, VaultCard>> {
    return new Map((await liveOwned(executor, refs)).map((row) => [row.vault_id, this.vaultCardOf(row, 'cardInfo.vaultId')]));
  }

  private vaultCardOf(row: VaultCardRow | undefined, tag: string): VaultCard {
    if (!row) throw new DomainError('not_found', 'not_found', `${tag} not found.`);
    return {
      pan: this.deps.cipher.decrypt(row.pan_sealed, sealVaultAd(row.vault_id)),
      brand: row.brand as CardBrand,
      expMonth: row.exp_month,
      expYear: row.exp_year,
      bin: row.bin,
      last4: row.last4,
      panLength: row.pan_length,
      fingerprint: row.fingerprint,
      vaultId: row.vault_id,
      cardholderName: row.cardholder_name,
      sandboxReturnCode: row.sandbox_return_code,
      networkReference: row.network_reference,
    };
  }

  /**
   * Seals a payment's card while its 3-D Secure challenge is open (the authorization is sent
   * once the buyer passes it, maybe from another instance): under DATA_KEY, bound to the payment
   * by the associated data, without the CVV (never written anywhere). The payment drops it
   * when the challenge ends.
   */
  sealForChallenge(paymentId: string, card: Card): string {
    const { cvv: _never, ...kept } = card;
    return this.deps.cipher.encrypt(JSON.stringify(kept), sealChallengeAd(paymentId));
  }

  openForChallenge(paymentId: string, sealed: string): Card {
    return JSON.parse(this.deps.cipher.decrypt(sealed, sealChallengeAd(paymentId))) as Card;
  }
}
