import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Database, Executor } from '../../db/connection.js';
import { maskPan, type CardBrand } from '../../domain/cards.js';
import { ApiError, notFound, type ErrorItem } from '../../http/errors.js';
import type { DataCipher } from '../../security/data-cipher.js';
import type { ZeroAuthRequest, ZeroAuthResult } from '../../acquirer/types.js';
import { cardFingerprint, validateCard, type Card, type CardInput } from './card-data.js';
import { CvvStore } from './cvv-store.js';
import type { CardKeyService } from './keys.js';
import { cardTokensRepository as tokens, cardUpdatesRepository, vaultCardsRepository as vault, type CardTokenRow, type VaultCardRow } from './repository.js';
import { replaceStoredCard, type CardHistoryEntry, type CardUpdate, type CardUpdateSource } from './card-updates.js';
import type { JobQueue } from '../../jobs/queue.js';
import { sandboxDelete, type ResetCounts, type ResetExecutor } from '../../db/sandbox-reset.js';

/** A numberToken lives 10 minutes of wall time (a security timer, like a bearer token). */
export const NUMBER_TOKEN_TTL_MS = 10 * 60 * 1000;
export const CARDHOLDER_NAME_MAX = 30;

/** Plain card fields as the token and vault endpoints take them. */
export interface PlainCardFields {
  cardNumber?: string;
  expirationMonth?: string;
  expirationYear?: string;
  securityCode?: string;
  brand?: string;
}

/** `{encryptedCard}` or the plain fields: exactly one form. */
export interface TokenInput extends PlainCardFields {
  encryptedCard?: string;
}

/** `{numberToken}`, `{encryptedCard}` or the plain fields: exactly one source. */
export interface VaultInput extends TokenInput {
  numberToken?: string;
}

export interface NumberToken {
  numberToken: string;
  brand: CardBrand;
  maskedNumber: string;
  expiresAt: string;
}

export interface VaultView {
  vaultId: string;
  brand: string;
  maskedNumber: string;
  expirationMonth: string;
  expirationYear: string;
  cardholderName: string;
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

/** A card check without a charge: the acquirer's zero auth, as the root hands it to this module. */
export type CardVerifier = (request: ZeroAuthRequest) => Promise<ZeroAuthResult>;

/** Associated data of sealed PANs (also sealed-columns.ts, which declares them for re-sealing). */
export const sealTokenAd = (numberToken: string) => `card-token:${numberToken}`;
export const sealVaultAd = (vaultId: string) => `vault:${vaultId}`;
export const sealChallengeAd = (paymentId: string) => `payment-challenge:${paymentId}`;

function maskStored(row: { bin: string; last4: string; pan_length: number }): string {
  return row.bin + '*'.repeat(row.pan_length - 10) + row.last4;
}

/** A stored card named by its merchant and id. */
export interface VaultRef {
  merchantId: string;
  vaultId: string;
}

/** The live stored cards of these refs, in one read; a card is found only for its own merchant. */
async function liveOwned(executor: Executor, refs: readonly VaultRef[]): Promise<VaultCardRow[]> {
  if (refs.length === 0) return [];
  const rows = await vault.findLiveMany(executor, [...new Set(refs.map((r) => r.vaultId))]);
  const owner = new Map(refs.map((r) => [r.vaultId, r.merchantId]));
  return rows.filter((row) => owner.get(row.vault_id) === row.merchant_id);
}

function toView(row: VaultCardRow): VaultView {
  return {
    vaultId: row.vault_id,
    brand: row.brand,
    maskedNumber: maskStored(row),
    expirationMonth: row.exp_month,
    expirationYear: row.exp_year,
    cardholderName: row.cardholder_name,
  };
}

/**
 * Card tokens and the card vault (contract section 5). PANs are stored only sealed under
 * DATA_KEY, each bound to its row by the associated data (`card-token:<token>`,
 * `vault:<vaultId>`), so a sealed PAN copied onto another row does not decrypt.
 */
export class CardService {
  private readonly cvvs = new CvvStore();

  constructor(
    private readonly database: Database,
    private readonly cipher: DataCipher,
    private readonly clock: Clock,
    private readonly keys: CardKeyService,
    /** The acquirer's zero auth (the composition root hands it over): checks a card without charging it. */
    private readonly verifier?: CardVerifier,
    /** For the events of stored cards (card.updated). */
    private readonly queue?: JobQueue,
  ) {}

  /** A stored card replaced in place (./card-updates.ts): by the issuer's account updater, or by its holder on a card update page. */
  replaceCard(merchantId: string, vaultId: string, replacement: { pan: string; expMonth: string; expYear: string }, source: CardUpdateSource): Promise<CardUpdate | null> {
    return replaceStoredCard({ database: this.database, cipher: this.cipher, clock: this.clock, queue: this.queue }, merchantId, vaultId, replacement, source, (pan) => this.cipher.encrypt(pan, sealVaultAd(vaultId)));
  }

  /** A stored card's replacements, newest first (the dashboard's card history). */
  async cardHistory(merchantId: string, vaultId: string): Promise<CardHistoryEntry[]> {
    return (await cardUpdatesRepository.history(this.database.db, merchantId, vaultId)).map((row) => ({
      updatedAt: row.created_at,
      source: row.source as CardUpdateSource,
      oldLast4: row.old_last4,
      newLast4: row.new_last4,
      oldExpiry: row.old_expiry,
      newExpiry: row.new_expiry,
    }));
  }

  /** Sandbox reset (src/modules/sandbox/reset-service.ts): this module's business rows, every merchant's or one's. */
  async resetSandboxData(executor: ResetExecutor, merchantId?: string): Promise<ResetCounts> {
    return {
      card_tokens: await sandboxDelete(executor, 'card_tokens', merchantId),
      vault_card_updates: await sandboxDelete(executor, 'vault_card_updates', merchantId),
      vault_cards: await sandboxDelete(executor, 'vault_cards', merchantId),
    };
  }

  async createToken(merchantId: string, input: TokenInput): Promise<NumberToken> {
    const card = await this.readCard(input, true);
    const numberToken = `tok_${randomBytes(24).toString('base64url')}`;
    const wallNow = this.clock.wallNow();
    const expiresAt = new Date(wallNow.getTime() + NUMBER_TOKEN_TTL_MS);
    await tokens.insert(this.database.db, {
      ...this.storedColumns(card, sealTokenAd(numberToken)),
      number_token: numberToken,
      merchant_id: merchantId,
      expires_at: expiresAt.toISOString(),
      consumed_at: null,
      created_at: this.clock.now().toISOString(),
    });
    if (card.cvv !== undefined) this.cvvs.put(numberToken, card.cvv, expiresAt, wallNow);
    return { numberToken, brand: card.brand, maskedNumber: maskPan(card.pan), expiresAt: expiresAt.toISOString() };
  }

  /**
   * Uses a numberToken up and answers its card (with the CVV when this instance still holds
   * it). Run it inside the payment's transaction: a rollback leaves the token usable (its CVV,
   * taken out of memory, is not put back; a retry goes without CVV). Another merchant's or an
   * unknown token is 404 and stays untouched; this merchant's expired or used one is 400.
   */
  async consumeToken(executor: Executor, merchantId: string, numberToken: string, tag = 'cardInfo.numberToken'): Promise<Card> {
    const wallNow = this.clock.wallNow();
    return this.tokenCardOf(executor, merchantId, numberToken, await tokens.consume(executor, merchantId, numberToken, wallNow.toISOString()), wallNow, tag);
  }

  /** The card of a consumed token, or the refusal of one that could not be consumed. */
  private async tokenCardOf(executor: Executor, merchantId: string, numberToken: string, row: CardTokenRow | undefined, wallNow: Date, tag: string): Promise<Card> {
    if (!row) {
      const known = await tokens.find(executor, merchantId, numberToken);
      if (!known) throw new ApiError(404, 'not_found', `${tag} not found.`);
      if (known.consumed_at !== null) throw new ApiError(400, tag, `${tag} was already used: a numberToken pays once. Tokenize the card again.`);
      throw new ApiError(400, tag, `${tag} has expired: a numberToken lives ${NUMBER_TOKEN_TTL_MS / 60000} minutes. Tokenize the card again.`);
    }
    return this.openToken(row, numberToken, this.cvvs.take(numberToken, wallNow));
  }

  /** A token row's card, opened, with the CVV this instance holds for it. */
  private openToken(row: CardTokenRow, numberToken: string, cvv: string | undefined): Card {
    return {
      pan: this.cipher.decrypt(row.pan_sealed, sealTokenAd(numberToken)),
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
   * For payments: decrypts and validates a `cardInfo.encryptedCard`. Decryption problems are
   * tagged `tag`; problems with the card's values `<tagPrefix>.cardNumber`... `brand` and
   * `securityCode` sent beside the encrypted card are checked against it (the encrypted
   * securityCode wins when both are present).
   */
  async cardFromEncrypted(
    encryptedCard: string,
    options: { tag?: string; tagPrefix?: string; brand?: string; securityCode?: string } = {},
  ): Promise<Card> {
    const { tag = 'cardInfo.encryptedCard', tagPrefix = 'cardInfo' } = options;
    const decrypted = await this.keys.decryptCard(encryptedCard, tag);
    const securityCode = decrypted.securityCode ?? options.securityCode;
    return this.validated(
      { ...decrypted, ...(securityCode !== undefined ? { securityCode } : {}), ...(options.brand !== undefined ? { brand: options.brand } : {}) },
      tagPrefix,
    );
  }

  /**
   * Seals a payment's card while its 3-D Secure challenge is open (the authorization is sent
   * once the buyer passes it, maybe from another instance): under DATA_KEY, bound to the payment
   * by the associated data, without the CVV (never written anywhere). The payment drops it
   * when the challenge ends.
   */
  sealForChallenge(paymentId: string, card: Card): string {
    const { cvv: _never, ...kept } = card;
    return this.cipher.encrypt(JSON.stringify(kept), sealChallengeAd(paymentId));
  }

  openForChallenge(paymentId: string, sealed: string): Card {
    return JSON.parse(this.cipher.decrypt(sealed, sealChallengeAd(paymentId))) as Card;
  }

  /**
   * `verify`: the card is checked with the acquirer's zero auth first; a card the issuer refuses
   * is a 422 (tag `card`, the issuer's message) and nothing is stored, a numberToken not used up.
   */
  async createVault(merchantId: string, input: VaultInput, cardholderName: string, options: { verify?: boolean } = {}): Promise<VaultView> {
    // Without verify a CVV sent to the vault is ignored, never checked nor stored; with it, it goes to the zero auth only.
    const { securityCode, ...source } = input;
    const name = typeof cardholderName === 'string' ? cardholderName.trim() : '';
    if (name.length < 1 || name.length > CARDHOLDER_NAME_MAX) {
      throw new ApiError(400, 'cardholderName', `cardholderName must have 1 to ${CARDHOLDER_NAME_MAX} characters.`);
    }
    const vaultId = randomUUID();
    let networkReference: string | null = null;
    const insert = async (db: Executor, card: Card) => {
      const row: VaultCardRow = {
        ...this.storedColumns(card, sealVaultAd(vaultId)),
        vault_id: vaultId,
        merchant_id: merchantId,
        cardholder_name: name,
        sandbox_return_code: null,
        created_at: this.clock.now().toISOString(),
        deleted_at: null,
        network_reference: networkReference,
      };
      await vault.insert(db, row);
      return toView(row);
    };
    if (source.numberToken !== undefined) {
      if (source.encryptedCard !== undefined || hasPlainFields({ ...source, securityCode })) {
        throw new ApiError(400, 'numberToken', 'Send exactly one card source: numberToken, encryptedCard, or cardNumber with expirationMonth and expirationYear.');
      }
      if (options.verify) networkReference = await this.verifyForStoring(merchantId, await this.peekToken(merchantId, source.numberToken, 'numberToken'), name);
      // One transaction: the token is used up only if the card is stored.
      return this.database.db.transaction().execute(async (trx) => insert(trx, await this.consumeToken(trx, merchantId, source.numberToken!, 'numberToken')));
    }
    const card = await this.readCard(options.verify && securityCode !== undefined ? { ...source, securityCode } : source, options.verify === true);
    if (options.verify) networkReference = await this.verifyForStoring(merchantId, card, name);
    return insert(this.database.db, card);
  }

  /** Zero auth before a card is stored: the network's reference when valid; a 422 (tag `card`) when the issuer refuses it. */
  private async verifyForStoring(merchantId: string, card: Card, holderName: string): Promise<string | null> {
    const result = await this.verify({ merchantId, card: { pan: card.pan, brand: card.brand, expMonth: card.expMonth, expYear: card.expYear, cvv: card.cvv, holderName }, storing: true });
    if (!result.valid) throw new ApiError(422, 'card', `The card was not verified: ${result.returnMessage} (returnCode ${result.returnCode}). Nothing was stored.`);
    return result.networkReference ?? null;
  }

  /** The acquirer's zero auth; an acquirer that does not answer is a 502 (nothing is charged by a zero auth either way). */
  async verify(request: ZeroAuthRequest): Promise<ZeroAuthResult> {
    if (!this.verifier) throw new ApiError(502, 'acquirer_failure', 'No acquirer can check cards in this process.');
    try {
      return await this.verifier(request);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw new ApiError(502, 'acquirer_unavailable', 'The acquirer did not answer the card check; nothing was charged. Try again.');
    }
  }

  /**
   * A numberToken's card without using the token up (zero auth, a vault's check before the
   * token is consumed), with its CVV when this instance still holds it. 404 for another
   * merchant's or an unknown token; 400 for a used or expired one.
   */
  async peekToken(merchantId: string, numberToken: string, tag: string): Promise<Card> {
    const wallNow = this.clock.wallNow();
    const row = await tokens.findUsable(this.database.db, merchantId, numberToken, wallNow.toISOString());
    if (!row) return this.tokenCardOf(this.database.db, merchantId, numberToken, undefined, wallNow, tag);
    return this.openToken(row, numberToken, this.cvvs.peek(numberToken, wallNow));
  }

  async getVault(merchantId: string, vaultId: string): Promise<VaultView> {
    const row = await vault.findLive(this.database.db, merchantId, vaultId);
    if (!row) throw new ApiError(404, 'not_found', 'Vault card not found.');
    return toView(row);
  }

  /** getVault for many stored cards in one read (a billing run): the live ones found, by vault id, each only for its own merchant. */
  async getVaults(refs: readonly VaultRef[]): Promise<Map<string, VaultView>> {
    return new Map((await liveOwned(this.database.db, refs)).map((row) => [row.vault_id, toView(row)]));
  }

  async deleteVault(merchantId: string, vaultId: string): Promise<{ vaultId: string; deletedAt: string }> {
    const deletedAt = this.clock.now().toISOString();
    if (!(await vault.softDelete(this.database.db, merchantId, vaultId, deletedAt))) throw new ApiError(404, 'not_found', 'Vault card not found.');
    return { vaultId, deletedAt };
  }

  /**
   * Sandbox (POST /sandbox/vaults/{vaultId}/outcome): every later charge of this stored card,
   * whatever its merchant, answers with `returnCode` (null clears it); 404 when the card is
   * unknown or deleted.
   */
  async setSandboxOutcome(vaultId: string, returnCode: string | null): Promise<void> {
    if (!(await vault.setSandboxReturnCode(this.database.db, vaultId, returnCode))) throw notFound('Vault card');
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

  /**
   * A stored card checked with a zero auth (a subscription about to be made with it): a refused
   * card is a 422 (tag `card`, the issuer's message); a valid one keeps the network's reference.
   */
  async verifyStored(merchantId: string, vaultId: string): Promise<void> {
    const card = await this.storedCard(merchantId, vaultId, 'vaultId');
    const result = await this.verify({
      merchantId,
      card: { pan: card.pan, brand: card.brand, expMonth: card.expMonth, expYear: card.expYear, holderName: card.cardholderName },
      storing: true,
      ...(card.sandboxReturnCode ? { forcedReturnCode: card.sandboxReturnCode as never } : {}),
    });
    if (!result.valid) throw new ApiError(422, 'card', `The card was not verified: ${result.returnMessage} (returnCode ${result.returnCode}).`);
    if (result.networkReference) await vault.setNetworkReference(this.database.db, vaultId, result.networkReference);
  }

  /**
   * For the payments relay, in its transaction: stored cards' network references of their first
   * approved charges, kept on the cards that have none yet, so a later merchant-initiated charge
   * carries it without reading the card's payments.
   */
  async keepNetworkReferences(executor: Executor, references: ReadonlyMap<string, string>): Promise<void> {
    await vault.keepNetworkReferences(executor, references);
  }

  /** loadVaultCard outside any transaction. */
  storedCard(merchantId: string, vaultId: string, tag: string): Promise<VaultCard> {
    return this.loadVaultCard(this.database.db, merchantId, vaultId, tag);
  }

  private vaultCardOf(row: VaultCardRow | undefined, tag: string): VaultCard {
    if (!row) throw new ApiError(404, 'not_found', `${tag} not found.`);
    return {
      pan: this.cipher.decrypt(row.pan_sealed, sealVaultAd(row.vault_id)),
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
   * The card of a token or vault request: `{encryptedCard}` or the plain fields, exactly one.
   * Tags are the request's own field paths (`cardNumber`; `encryptedCard.cardNumber` for a
   * value inside the encrypted card). `keepCvv` false drops the CVV unchecked (the vault).
   */
  async readCard(input: TokenInput, keepCvv: boolean): Promise<Card> {
    const plain = hasPlainFields(input);
    if (input.encryptedCard !== undefined && plain) {
      throw new ApiError(400, 'encryptedCard', 'Send either encryptedCard or the plain card fields (cardNumber, expirationMonth, expirationYear, securityCode), not both.');
    }
    if (input.encryptedCard !== undefined) {
      const decrypted = await this.keys.decryptCard(input.encryptedCard, 'encryptedCard');
      const { securityCode, ...rest } = decrypted;
      return this.validated({ ...rest, ...(keepCvv && securityCode !== undefined ? { securityCode } : {}), ...(input.brand !== undefined ? { brand: input.brand } : {}) }, 'encryptedCard');
    }
    const missing: ErrorItem[] = (['cardNumber', 'expirationMonth', 'expirationYear'] as const)
      .filter((field) => input[field] === undefined)
      .map((field) => ({ tag: field, description: `${field} is required (or send encryptedCard instead).` }));
    if (missing.length > 0) throw new ApiError(400, missing);
    return this.validated(
      {
        number: input.cardNumber!,
        expirationMonth: input.expirationMonth!,
        expirationYear: input.expirationYear!,
        ...(keepCvv && input.securityCode !== undefined ? { securityCode: input.securityCode } : {}),
        ...(input.brand !== undefined ? { brand: input.brand } : {}),
      },
      '',
    );
  }

  private validated(input: CardInput, tagPrefix: string): Card {
    const card = validateCard(input, this.clock.now(), tagPrefix);
    return { ...card, fingerprint: cardFingerprint(this.cipher, card.pan) };
  }

  private storedColumns(card: Card, associatedData: string) {
    return {
      pan_sealed: this.cipher.encrypt(card.pan, associatedData),
      brand: card.brand,
      bin: card.bin,
      last4: card.last4,
      pan_length: card.panLength,
      exp_month: card.expMonth,
      exp_year: card.expYear,
      fingerprint: card.fingerprint,
    };
  }
}

function hasPlainFields(input: PlainCardFields): boolean {
  return input.cardNumber !== undefined || input.expirationMonth !== undefined || input.expirationYear !== undefined || input.securityCode !== undefined;
}
