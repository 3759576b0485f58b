import type { ZeroAuthRequest, ZeroAuthResult } from '../../acquirer/types.js';
import type { Clock } from '../../clock.js';
import type { Database, Executor } from '../../db/connection.js';
import { sandboxDelete, type ResetCounts, type ResetExecutor } from '../../db/sandbox-reset.js';
import type { CardBrand } from '../../domain/cards.js';
import { DomainError, invalid } from '../../domain/errors.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { DataCipher } from '../../security/data-cipher.js';
import { agreeingCard, chargeableVault, checkedCard, sealChallengeAd, sealTokenAd, sealVaultAd, type Card, type ChargeableCard, type PaymentCardInfo, type VaultCard, type VaultRef } from './card-data.js';
import type { CardHistoryEntry, CardUpdate, CardUpdateSource } from './card-updates.js';
import { CvvStore } from './cvv-store.js';
import type { CardDeps, CardVerifier } from './deps.js';
import type { CardKeyService } from './keys.js';
import { cardTokensRepository as tokens, vaultCardsRepository as vault, type CardTokenRow, type VaultCardRow } from './repository.js';
import { CardTokens, NUMBER_TOKEN_TTL_MS, type NumberToken, type TokenInput } from './tokens.js';
import { CardVault, type VaultInput, type VaultView } from './vault.js';

export { sealChallengeAd, sealTokenAd, sealVaultAd } from './card-data.js';
export { CARDHOLDER_NAME_MAX } from './vault.js';
export { NUMBER_TOKEN_TTL_MS } from './tokens.js';
export type { CardVerifier };
export type { NumberToken, PlainCardFields, TokenInput } from './tokens.js';
export type { VaultInput, VaultView } from './vault.js';
export type { ChargeableCard, PaymentCardInfo, VaultCard, VaultRef } from './card-data.js';

/** A stored card before its PAN is opened: its other fields, the sealed PAN and the associated data that opens it. */
interface Sealed<C extends Card> {
  card: Omit<C, 'pan'>;
  sealed: string;
  ad: string;
}

/** What a token's row and a vault card's row both keep of the card, besides its sealed PAN. */
function storedCardFields(row: CardTokenRow | VaultCardRow): Omit<Card, 'pan'> {
  return { brand: row.brand as CardBrand, expMonth: row.exp_month, expYear: row.exp_year, bin: row.bin, last4: row.last4, panLength: row.pan_length, fingerprint: row.fingerprint };
}

function sealedToken(row: CardTokenRow, numberToken: string, cvv: string | undefined): Sealed<Card> {
  const card = storedCardFields(row);
  return { card: cvv === undefined ? card : { ...card, cvv }, sealed: row.pan_sealed, ad: sealTokenAd(numberToken) };
}

function sealedVaultCard(row: VaultCardRow | undefined, tag: string): Sealed<VaultCard> {
  if (!row) throw new DomainError('not_found', 'not_found', `${tag} not found.`);
  return {
    card: {
      ...storedCardFields(row),
      vaultId: row.vault_id,
      cardholderName: row.cardholder_name,
      sandboxReturnCode: row.sandbox_return_code,
      networkReference: row.network_reference,
    },
    sealed: row.pan_sealed,
    ad: sealVaultAd(row.vault_id),
  };
}

/**
 * Cards (contract section 5): here, the card a charge uses (a payment's card source resolved,
 * stored cards opened with their PAN, numberTokens used up); tokens are made in ./tokens.ts and
 * stored cards kept in ./vault.ts. PANs are stored only sealed under DATA_KEY, each bound to its
 * row by the associated data (`card-token:<token>`, `vault:<vaultId>`), so a sealed PAN copied
 * onto another row does not decrypt.
 */
export class CardService {
  private readonly deps: CardDeps;
  private readonly tokens: CardTokens;
  private readonly vault: CardVault;

  constructor(database: Database, cipher: DataCipher, clock: Clock, keys: CardKeyService, verifier?: CardVerifier, queue?: JobQueue) {
    this.deps = { database, cipher, clock, keys, cvvs: new CvvStore(), verifier, queue };
    this.tokens = new CardTokens(this.deps);
    this.vault = new CardVault(this.deps, this.tokens, this);
  }

  /**
   * The card of a payment's `cardInfo`: a vault card read or a numberToken used up in
   * `executor`, the payment's transaction (a payment refused on the way leaves the token
   * usable), then opened; or an encryptedCard decrypted and checked (RSA is CPU work: no
   * transaction is open for it). The `brand` and `securityCode` sent beside it must agree with
   * the card. Tags are `cardInfo.*`.
   */
  async paymentCard(executor: Executor, merchantId: string, cardInfo: PaymentCardInfo): Promise<ChargeableCard> {
    const card: ChargeableCard =
      cardInfo.encryptedCard === undefined
        ? this.opened(await this.storedPaymentCard(executor, merchantId, cardInfo))
        : { ...(await this.cardFromEncrypted(cardInfo.encryptedCard)), source: 'encrypted' };
    return agreeingCard(card, cardInfo);
  }

  /** A payment's stored card, still sealed: its vault card, or its numberToken used up. */
  private async storedPaymentCard(executor: Executor, merchantId: string, cardInfo: PaymentCardInfo): Promise<Sealed<ChargeableCard>> {
    if (cardInfo.vaultId !== undefined) {
      const stored = sealedVaultCard(await vault.findLive(executor, merchantId, cardInfo.vaultId), 'cardInfo.vaultId');
      return { ...stored, card: chargeableVault(stored.card) };
    }
    if (cardInfo.numberToken === undefined) throw invalid('cardInfo', 'Send exactly one card source: numberToken, encryptedCard or vaultId.');
    const stored = await this.usedToken(executor, merchantId, cardInfo.numberToken, 'cardInfo.numberToken');
    return { ...stored, card: { ...stored.card, source: 'token' } };
  }

  /** A payment's `cardInfo.encryptedCard`, decrypted and checked (its brand and securityCode are checked after, for every source alike). */
  private async cardFromEncrypted(encryptedCard: string): Promise<Card> {
    const { keys, clock, cipher } = this.deps;
    return checkedCard(await keys.decryptCard(encryptedCard, 'cardInfo.encryptedCard'), clock.now(), 'cardInfo', cipher);
  }

  /** A stored card with its PAN opened: the one place a vault card or a token's PAN is decrypted. */
  private opened<C extends Card>({ card, sealed, ad }: Sealed<C>): C {
    return { ...card, pan: this.deps.cipher.decrypt(sealed, ad) } as C;
  }

  /**
   * Uses a numberToken up and answers its card (with the CVV when this instance still holds
   * it). Run it inside the payment's transaction: a rollback leaves the token usable (its CVV,
   * taken out of memory, is not put back; a retry goes without CVV). Another merchant's or an
   * unknown token is 404 and stays untouched; this merchant's expired or used one is 400.
   */
  async consumeToken(executor: Executor, merchantId: string, numberToken: string, tag = 'cardInfo.numberToken'): Promise<Card> {
    return this.opened(await this.usedToken(executor, merchantId, numberToken, tag));
  }

  /** consumeToken's card, still sealed. */
  private async usedToken(executor: Executor, merchantId: string, numberToken: string, tag: string): Promise<Sealed<Card>> {
    const wallNow = this.deps.clock.wallNow();
    const row = await tokens.consume(executor, merchantId, numberToken, wallNow.toISOString());
    if (!row) throw await this.tokenRefusal(executor, merchantId, numberToken, tag);
    return sealedToken(row, numberToken, this.deps.cvvs.take(numberToken, wallNow));
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
    if (!row) throw await this.tokenRefusal(database.db, merchantId, numberToken, tag);
    return this.opened(sealedToken(row, numberToken, cvvs.peek(numberToken, wallNow)));
  }

  /** Why a token could not be used: unknown (or another merchant's), used, or expired. */
  private async tokenRefusal(executor: Executor, merchantId: string, numberToken: string, tag: string): Promise<DomainError> {
    const known = await tokens.find(executor, merchantId, numberToken);
    if (!known) return new DomainError('not_found', 'not_found', `${tag} not found.`);
    if (known.consumed_at !== null) return invalid(tag, `${tag} was already used: a numberToken pays once. Tokenize the card again.`);
    return invalid(tag, `${tag} has expired: a numberToken lives ${NUMBER_TOKEN_TTL_MS / 60000} minutes. Tokenize the card again.`);
  }

  /**
   * For payments and subscriptions: the merchant's stored card with its PAN, or 404 when it is
   * another merchant's, unknown or deleted. Expiry is not checked here: each caller decides
   * (a subscription billing records PaymentInvalid, a payment answers 400).
   */
  async loadVaultCard(executor: Executor, merchantId: string, vaultId: string, tag = 'cardInfo.vaultId'): Promise<VaultCard> {
    return this.opened(sealedVaultCard(await vault.findLive(executor, merchantId, vaultId), tag));
  }

  /** `loadVaultCard` for a batch, in one read: the cards found, by vaultId (another merchant's, unknown or deleted ones are absent). */
  async loadVaultCards(executor: Executor, refs: readonly VaultRef[]): Promise<Map<string, VaultCard>> {
    return new Map((await vault.findLiveOwned(executor, refs)).map((row) => [row.vault_id, this.opened(sealedVaultCard(row, 'cardInfo.vaultId'))]));
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

  /** loadVaultCard outside any transaction. */
  storedCard(merchantId: string, vaultId: string, tag: string): Promise<VaultCard> {
    return this.loadVaultCard(this.deps.database.db, merchantId, vaultId, tag);
  }

  createToken(merchantId: string, input: TokenInput): Promise<NumberToken> {
    return this.tokens.createToken(merchantId, input);
  }

  /** The card of a token or vault request (./tokens.ts `readCard`). */
  readCard(input: TokenInput, keepCvv: boolean): Promise<Card> {
    return this.tokens.readCard(input, keepCvv);
  }

  createVault(merchantId: string, input: VaultInput, cardholderName: string, options: { verify?: boolean } = {}): Promise<VaultView> {
    return this.vault.createVault(merchantId, input, cardholderName, options);
  }

  verify(request: ZeroAuthRequest): Promise<ZeroAuthResult> {
    return this.vault.verify(request);
  }

  verifyStored(merchantId: string, vaultId: string): Promise<void> {
    return this.vault.verifyStored(merchantId, vaultId);
  }

  getVault(merchantId: string, vaultId: string): Promise<VaultView> {
    return this.vault.getVault(merchantId, vaultId);
  }

  getVaults(refs: readonly VaultRef[]): Promise<Map<string, VaultView>> {
    return this.vault.getVaults(refs);
  }

  deleteVault(merchantId: string, vaultId: string): Promise<{ vaultId: string; deletedAt: string }> {
    return this.vault.deleteVault(merchantId, vaultId);
  }

  setSandboxOutcome(vaultId: string, returnCode: string | null): Promise<void> {
    return this.vault.setSandboxOutcome(vaultId, returnCode);
  }

  keepNetworkReferences(executor: Executor, references: ReadonlyMap<string, string>): Promise<void> {
    return this.vault.keepNetworkReferences(executor, references);
  }

  replaceCard(merchantId: string, vaultId: string, replacement: { pan: string; expMonth: string; expYear: string }, source: CardUpdateSource): Promise<CardUpdate | null> {
    return this.vault.replaceCard(merchantId, vaultId, replacement, source);
  }

  cardHistory(merchantId: string, vaultId: string): Promise<CardHistoryEntry[]> {
    return this.vault.cardHistory(merchantId, vaultId);
  }

  /** Sandbox reset (src/modules/sandbox/reset-service.ts): this module's business rows, every merchant's or one's. */
  async resetSandboxData(executor: ResetExecutor, merchantId?: string): Promise<ResetCounts> {
    return {
      card_tokens: await sandboxDelete(executor, 'card_tokens', merchantId),
      vault_card_updates: await sandboxDelete(executor, 'vault_card_updates', merchantId),
      vault_cards: await sandboxDelete(executor, 'vault_cards', merchantId),
    };
  }
}
