import { randomBytes } from 'node:crypto';
import { maskPan, type CardBrand } from '../../domain/cards.js';
import { invalid, type ErrorItem } from '../../domain/errors.js';
import type { DataCipher } from '../../security/data-cipher.js';
import { checkedCard, sealTokenAd, type Card } from './card-data.js';
import type { CardDeps } from './deps.js';
import { cardTokensRepository as tokens } from './repository.js';

/** A numberToken lives 10 minutes of wall time (a security timer, like a bearer token). */
export const NUMBER_TOKEN_TTL_MS = 10 * 60 * 1000;

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

export interface NumberToken {
  numberToken: string;
  brand: CardBrand;
  maskedNumber: string;
  expiresAt: string;
}

/**
 * Card tokens (contract section 5): a card sent once, stored sealed under DATA_KEY for
 * 10 minutes, paid with once (its use: CardService in ./service.ts). Its CVV stays in this process's memory.
 */
export class CardTokens {
  constructor(private readonly deps: CardDeps) {}

  async createToken(merchantId: string, input: TokenInput): Promise<NumberToken> {
    const { database, clock, cipher, cvvs } = this.deps;
    const card = await this.readCard(input, true);
    const numberToken = `tok_${randomBytes(24).toString('base64url')}`;
    const wallNow = clock.wallNow();
    const expiresAt = new Date(wallNow.getTime() + NUMBER_TOKEN_TTL_MS);
    await tokens.insert(database.db, {
      ...storedColumns(cipher, card, sealTokenAd(numberToken)),
      number_token: numberToken,
      merchant_id: merchantId,
      expires_at: expiresAt.toISOString(),
      consumed_at: null,
      created_at: clock.now().toISOString(),
    });
    if (card.cvv !== undefined) cvvs.put(numberToken, card.cvv, expiresAt, wallNow);
    return { numberToken, brand: card.brand, maskedNumber: maskPan(card.pan), expiresAt: expiresAt.toISOString() };
  }

  /**
   * The card of a token or vault request: `{encryptedCard}` or the plain fields, exactly one.
   * Tags are the request's own field paths (`cardNumber`; `encryptedCard.cardNumber` for a
   * value inside the encrypted card). `keepCvv` false drops the CVV unchecked (the vault).
   */
  async readCard(input: TokenInput, keepCvv: boolean): Promise<Card> {
    const { clock, cipher, keys } = this.deps;
    const plain = hasPlainFields(input);
    if (input.encryptedCard !== undefined && plain) {
      throw invalid('encryptedCard', 'Send either encryptedCard or the plain card fields (cardNumber, expirationMonth, expirationYear, securityCode), not both.');
    }
    if (input.encryptedCard !== undefined) {
      const decrypted = await keys.decryptCard(input.encryptedCard, 'encryptedCard');
      const { securityCode, ...rest } = decrypted;
      return checkedCard({ ...rest, ...(keepCvv && securityCode !== undefined ? { securityCode } : {}), ...(input.brand !== undefined ? { brand: input.brand } : {}) }, clock.now(), 'encryptedCard', cipher);
    }
    const missing: ErrorItem[] = (['cardNumber', 'expirationMonth', 'expirationYear'] as const)
      .filter((field) => input[field] === undefined)
      .map((field) => ({ tag: field, description: `${field} is required (or send encryptedCard instead).` }));
    if (missing.length > 0) throw invalid(missing);
    return checkedCard(
      {
        number: input.cardNumber!,
        expirationMonth: input.expirationMonth!,
        expirationYear: input.expirationYear!,
        ...(keepCvv && input.securityCode !== undefined ? { securityCode: input.securityCode } : {}),
        ...(input.brand !== undefined ? { brand: input.brand } : {}),
      },
      clock.now(),
      '',
      cipher,
    );
  }
}

/** The columns a stored card (a token's, a vault's) keeps: its PAN sealed under `associatedData`, its mask parts, its fingerprint. */
export function storedColumns(cipher: DataCipher, card: Card, associatedData: string) {
  return {
    pan_sealed: cipher.encrypt(card.pan, associatedData),
    brand: card.brand,
    bin: card.bin,
    last4: card.last4,
    pan_length: card.panLength,
    exp_month: card.expMonth,
    exp_year: card.expYear,
    fingerprint: card.fingerprint,
  };
}

export function hasPlainFields(input: PlainCardFields): boolean {
  return input.cardNumber !== undefined || input.expirationMonth !== undefined || input.expirationYear !== undefined || input.securityCode !== undefined;
}
