import type { ZeroAuthRequest, ZeroAuthResult } from '../../acquirer/types.js';
import type { Clock } from '../../clock.js';
import type { Database, Executor } from '../../db/connection.js';
import { sandboxDelete, type ResetCounts, type ResetExecutor } from '../../db/sandbox-reset.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { DataCipher } from '../../security/data-cipher.js';
import type { Card } from './card-data.js';
import type { CardHistoryEntry, CardUpdate, CardUpdateSource } from './card-updates.js';
import { CvvStore } from './cvv-store.js';
import type { CardDeps, CardVerifier } from './deps.js';
import type { CardKeyService } from './keys.js';
import { CardResolution, type VaultCard, type VaultRef } from './resolution.js';
import { CardTokens, type NumberToken, type TokenInput } from './tokens.js';
import { CardVault, type VaultInput, type VaultView } from './vault.js';

export { sealChallengeAd, sealTokenAd, sealVaultAd } from './card-data.js';
export { CARDHOLDER_NAME_MAX } from './vault.js';
export { NUMBER_TOKEN_TTL_MS } from './tokens.js';
export type { CardVerifier };
export type { NumberToken, PlainCardFields, TokenInput } from './tokens.js';
export type { VaultInput, VaultView } from './vault.js';
export type { ChargeableCard, PaymentCardInfo, VaultCard, VaultRef } from './resolution.js';

/**
 * Card tokens and the card vault (contract section 5), and the cards charges use. PANs are
 * stored only sealed under DATA_KEY, each bound to its row by the associated data
 * (`card-token:<token>`, `vault:<vaultId>`), so a sealed PAN copied onto another row does not
 * decrypt. The work is in three parts: ./tokens.ts, ./vault.ts and ./resolution.ts (a
 * payment's card, stored cards opened for a charge).
 */
export class CardService {
  /** The card a charge uses: `resolution.resolve` answers a payment's card from its `cardInfo`. */
  readonly resolution: CardResolution;
  private readonly tokens: CardTokens;
  private readonly vault: CardVault;

  constructor(private readonly database: Database, cipher: DataCipher, clock: Clock, keys: CardKeyService, verifier?: CardVerifier, queue?: JobQueue) {
    const deps: CardDeps = { database, cipher, clock, keys, cvvs: new CvvStore(), verifier, queue };
    this.tokens = new CardTokens(deps);
    this.resolution = new CardResolution(deps);
    this.vault = new CardVault(deps, this.tokens, this.resolution);
  }

  createToken(merchantId: string, input: TokenInput): Promise<NumberToken> {
    return this.tokens.createToken(merchantId, input);
  }

  /** The card of a token or vault request (./tokens.ts `readCard`). */
  readCard(input: TokenInput, keepCvv: boolean): Promise<Card> {
    return this.tokens.readCard(input, keepCvv);
  }

  /** Uses a numberToken up, in the caller's transaction (./resolution.ts). */
  consumeToken(executor: Executor, merchantId: string, numberToken: string, tag?: string): Promise<Card> {
    return this.resolution.consumeToken(executor, merchantId, numberToken, tag);
  }

  /** A numberToken's card without using the token up (./resolution.ts). */
  peekToken(merchantId: string, numberToken: string, tag: string): Promise<Card> {
    return this.resolution.peekToken(merchantId, numberToken, tag);
  }

  loadVaultCard(executor: Executor, merchantId: string, vaultId: string, tag?: string): Promise<VaultCard> {
    return this.resolution.loadVaultCard(executor, merchantId, vaultId, tag);
  }

  loadVaultCards(executor: Executor, refs: readonly VaultRef[]): Promise<Map<string, VaultCard>> {
    return this.resolution.loadVaultCards(executor, refs);
  }

  /** loadVaultCard outside any transaction. */
  storedCard(merchantId: string, vaultId: string, tag: string): Promise<VaultCard> {
    return this.resolution.loadVaultCard(this.database.db, merchantId, vaultId, tag);
  }

  sealForChallenge(paymentId: string, card: Card): string {
    return this.resolution.sealForChallenge(paymentId, card);
  }

  openForChallenge(paymentId: string, sealed: string): Card {
    return this.resolution.openForChallenge(paymentId, sealed);
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
