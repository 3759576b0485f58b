import { randomUUID } from 'node:crypto';
import type { ZeroAuthRequest, ZeroAuthResult } from '../../acquirer/types.js';
import type { Executor } from '../../db/connection.js';
import { DomainError, invalid, notFound, refused, upstreamFailed } from '../../domain/errors.js';
import { sealVaultAd, type Card } from './card-data.js';
import { replaceStoredCard, type CardHistoryEntry, type CardUpdate, type CardUpdateSource } from './card-updates.js';
import type { CardDeps } from './deps.js';
import { cardUpdatesRepository, vaultCardsRepository as vault, type VaultCardRow } from './repository.js';
import type { VaultCard, VaultRef } from './card-data.js';
import { hasPlainFields, storedColumns, type CardTokens, type TokenInput } from './tokens.js';

export const CARDHOLDER_NAME_MAX = 30;

/** `{numberToken}`, `{encryptedCard}` or the plain fields: exactly one source. */
export interface VaultInput extends TokenInput {
  numberToken?: string;
}

export interface VaultView {
  vaultId: string;
  brand: string;
  maskedNumber: string;
  expirationMonth: string;
  expirationYear: string;
  cardholderName: string;
}

/** What the vault uses of the charge side (CardService, ./service.ts): a token's card read or used up, a stored card opened. */
export interface StoredCardReader {
  peekToken(merchantId: string, numberToken: string, tag: string): Promise<Card>;
  consumeToken(executor: Executor, merchantId: string, numberToken: string, tag?: string): Promise<Card>;
  loadVaultCard(executor: Executor, merchantId: string, vaultId: string, tag?: string): Promise<VaultCard>;
}

function maskStored(row: { bin: string; last4: string; pan_length: number }): string {
  return row.bin + '*'.repeat(row.pan_length - 10) + row.last4;
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
 * The card vault (contract section 5): stored cards, their zero auth checks, their
 * replacements in place. A stored card is opened for a charge by CardService (./service.ts).
 */
export class CardVault {
  constructor(
    private readonly deps: CardDeps,
    private readonly tokens: CardTokens,
    private readonly resolution: StoredCardReader,
  ) {}

  /**
   * `verify`: the card is checked with the acquirer's zero auth first; a card the issuer refuses
   * is a 422 (tag `card`, the issuer's message) and nothing is stored, a numberToken not used up.
   */
  async createVault(merchantId: string, input: VaultInput, cardholderName: string, options: { verify?: boolean } = {}): Promise<VaultView> {
    const { database, clock, cipher } = this.deps;
    // Without verify a CVV sent to the vault is ignored, never checked nor stored; with it, it goes to the zero auth only.
    const { securityCode, ...source } = input;
    const name = typeof cardholderName === 'string' ? cardholderName.trim() : '';
    if (name.length < 1 || name.length > CARDHOLDER_NAME_MAX) {
      throw invalid('cardholderName', `cardholderName must have 1 to ${CARDHOLDER_NAME_MAX} characters.`);
    }
    const vaultId = randomUUID();
    let networkReference: string | null = null;
    const insert = async (db: Executor, card: Card) => {
      const row: VaultCardRow = {
        ...storedColumns(cipher, card, sealVaultAd(vaultId)),
        vault_id: vaultId,
        merchant_id: merchantId,
        cardholder_name: name,
        sandbox_return_code: null,
        created_at: clock.now().toISOString(),
        deleted_at: null,
        network_reference: networkReference,
      };
      await vault.insert(db, row);
      return toView(row);
    };
    if (source.numberToken !== undefined) {
      if (source.encryptedCard !== undefined || hasPlainFields({ ...source, securityCode })) {
        throw invalid('numberToken', 'Send exactly one card source: numberToken, encryptedCard, or cardNumber with expirationMonth and expirationYear.');
      }
      if (options.verify) networkReference = await this.verifyForStoring(merchantId, await this.resolution.peekToken(merchantId, source.numberToken, 'numberToken'), name);
      // One transaction: the token is used up only if the card is stored.
      return database.db.transaction().execute(async (trx) => insert(trx, await this.resolution.consumeToken(trx, merchantId, source.numberToken!, 'numberToken')));
    }
    const card = await this.tokens.readCard(options.verify && securityCode !== undefined ? { ...source, securityCode } : source, options.verify === true);
    if (options.verify) networkReference = await this.verifyForStoring(merchantId, card, name);
    return insert(database.db, card);
  }

  /** Zero auth before a card is stored: the network's reference when valid; a 422 (tag `card`) when the issuer refuses it. */
  private async verifyForStoring(merchantId: string, card: Card, holderName: string): Promise<string | null> {
    const result = await this.verify({ merchantId, card: { pan: card.pan, brand: card.brand, expMonth: card.expMonth, expYear: card.expYear, cvv: card.cvv, holderName }, storing: true });
    if (!result.valid) throw refused('card', `The card was not verified: ${result.returnMessage} (returnCode ${result.returnCode}). Nothing was stored.`);
    return result.networkReference ?? null;
  }

  /** The acquirer's zero auth; an acquirer that does not answer is a 502 (nothing is charged by a zero auth either way). */
  async verify(request: ZeroAuthRequest): Promise<ZeroAuthResult> {
    if (!this.deps.verifier) throw upstreamFailed('acquirer_failure', 'No acquirer can check cards in this process.');
    try {
      return await this.deps.verifier(request);
    } catch (error) {
      if (error instanceof DomainError) throw error;
      throw upstreamFailed('acquirer_unavailable', 'The acquirer did not answer the card check; nothing was charged. Try again.');
    }
  }

  /**
   * A stored card checked with a zero auth (a subscription about to be made with it): a refused
   * card is a 422 (tag `card`, the issuer's message); a valid one keeps the network's reference.
   */
  async verifyStored(merchantId: string, vaultId: string): Promise<void> {
    const card = await this.resolution.loadVaultCard(this.deps.database.db, merchantId, vaultId, 'vaultId');
    const result = await this.verify({
      merchantId,
      card: { pan: card.pan, brand: card.brand, expMonth: card.expMonth, expYear: card.expYear, holderName: card.cardholderName },
      storing: true,
      ...(card.sandboxReturnCode ? { forcedReturnCode: card.sandboxReturnCode as never } : {}),
    });
    if (!result.valid) throw refused('card', `The card was not verified: ${result.returnMessage} (returnCode ${result.returnCode}).`);
    if (result.networkReference) await vault.setNetworkReference(this.deps.database.db, vaultId, result.networkReference);
  }

  async getVault(merchantId: string, vaultId: string): Promise<VaultView> {
    const row = await vault.findLive(this.deps.database.db, merchantId, vaultId);
    if (!row) throw notFound('Vault card');
    return toView(row);
  }

  /** getVault for many stored cards in one read (a billing run): the live ones found, by vault id, each only for its own merchant. */
  async getVaults(refs: readonly VaultRef[]): Promise<Map<string, VaultView>> {
    return new Map((await vault.findLiveOwned(this.deps.database.db, refs)).map((row) => [row.vault_id, toView(row)]));
  }

  async deleteVault(merchantId: string, vaultId: string): Promise<{ vaultId: string; deletedAt: string }> {
    const deletedAt = this.deps.clock.now().toISOString();
    if (!(await vault.softDelete(this.deps.database.db, merchantId, vaultId, deletedAt))) throw notFound('Vault card');
    return { vaultId, deletedAt };
  }

  /**
   * Sandbox (POST /sandbox/vaults/{vaultId}/outcome): every later charge of this stored card,
   * whatever its merchant, answers with `returnCode` (null clears it); 404 when the card is
   * unknown or deleted.
   */
  async setSandboxOutcome(vaultId: string, returnCode: string | null): Promise<void> {
    if (!(await vault.setSandboxReturnCode(this.deps.database.db, vaultId, returnCode))) throw notFound('Vault card');
  }

  /**
   * For the payments relay, in its transaction: stored cards' network references of their first
   * approved charges, kept on the cards that have none yet, so a later merchant-initiated charge
   * carries it without reading the card's payments.
   */
  async keepNetworkReferences(executor: Executor, references: ReadonlyMap<string, string>): Promise<void> {
    await vault.keepNetworkReferences(executor, references);
  }

  /** A stored card replaced in place (./card-updates.ts): by the issuer's account updater, or by its holder on a card update page. */
  replaceCard(merchantId: string, vaultId: string, replacement: { pan: string; expMonth: string; expYear: string }, source: CardUpdateSource): Promise<CardUpdate | null> {
    const { database, cipher, clock, queue } = this.deps;
    return replaceStoredCard({ database, cipher, clock, queue }, merchantId, vaultId, replacement, source, (pan) => cipher.encrypt(pan, sealVaultAd(vaultId)));
  }

  /** A stored card's replacements, newest first (the dashboard's card history). */
  async cardHistory(merchantId: string, vaultId: string): Promise<CardHistoryEntry[]> {
    return (await cardUpdatesRepository.history(this.deps.database.db, merchantId, vaultId)).map((row) => ({
      updatedAt: row.created_at,
      source: row.source as CardUpdateSource,
      oldLast4: row.old_last4,
      newLast4: row.new_last4,
      oldExpiry: row.old_expiry,
      newExpiry: row.new_expiry,
    }));
  }
}
