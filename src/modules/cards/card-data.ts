import { createHmac } from 'node:crypto';
import { cvvLength, detectBrand, isValidCvv, luhnValid, validateExpiry, type CardBrand } from '../../domain/cards.js';
import { invalid, type ErrorItem } from '../../domain/errors.js';
import type { DataCipher } from '../../security/data-cipher.js';

export const CARD_BRANDS: readonly CardBrand[] = ['visa', 'mastercard', 'amex', 'elo', 'hipercard'];

/** Card data as a caller sent it (plain fields or the decrypted encryptedCard). */
export interface CardInput {
  number: string;
  expirationMonth: string;
  expirationYear: string;
  securityCode?: string;
  /** The brand the caller claims; it must agree with the number. */
  brand?: string;
}

export interface ValidCard {
  pan: string;
  brand: CardBrand;
  /** '01'..'12'. */
  expMonth: string;
  /** Four digits. */
  expYear: string;
  /** Only for the authorization at hand; never stored. */
  cvv?: string;
  /** First 6 digits. */
  bin: string;
  last4: string;
  panLength: number;
}

/** A validated card with its fingerprint: what tokens, the vault and payments hand around. */
export interface Card extends ValidCard {
  fingerprint: string;
}

/** Associated data of sealed PANs (also src/security/sealed-columns.ts, which re-seals them): a sealed PAN copied onto another row does not decrypt. */
export const sealTokenAd = (numberToken: string) => `card-token:${numberToken}`;
export const sealVaultAd = (vaultId: string) => `vault:${vaultId}`;
export const sealChallengeAd = (paymentId: string) => `payment-challenge:${paymentId}`;

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

/** A vault card as a payment charges it (its sandbox outcome forced when one is set). */
export function chargeableVault<C extends Omit<VaultCard, 'pan'>>(card: C): C & Omit<ChargeableCard, 'pan'> {
  return { ...card, source: 'vault', forcedReturnCode: card.sandboxReturnCode, networkReference: card.networkReference };
}

const DIGITS = /^\d+$/;

/**
 * Checks a card the way contract section 5 says and answers it normalised, or throws one 400
 * listing every problem, tagged `<tagPrefix>.<field>` (`cardInfo.cardNumber`...; a prefix of
 * '' gives bare field names). Descriptions never contain the number or the CVV: they end up in
 * responses and logs. `now` is business time: a card expires by the calendar the APIs show.
 */
export function validateCard(input: CardInput, now: Date, tagPrefix: string): ValidCard {
  const tag = (field: string) => (tagPrefix ? `${tagPrefix}.${field}` : field);
  const problems: ErrorItem[] = [];
  const problem = (field: string, description: string) => problems.push({ tag: tag(field), description: `${tag(field)} ${description}` });

  const pan = input.number;
  let brand: CardBrand | null = null;
  if (typeof pan !== 'string' || pan.length === 0) problem('cardNumber', 'is required.');
  else if (!DIGITS.test(pan)) problem('cardNumber', 'must contain digits only (no spaces or separators).');
  else if (pan.length < 12 || pan.length > 19) problem('cardNumber', 'must have 12 to 19 digits.');
  else if (!luhnValid(pan)) problem('cardNumber', 'is not a valid card number (check digit mismatch).');
  else if ((brand = detectBrand(pan)) === null) problem('cardNumber', `is not a card of a supported brand (${CARD_BRANDS.join(', ')}).`);

  if (input.brand !== undefined) {
    const claimed = String(input.brand).trim().toLowerCase();
    if (!(CARD_BRANDS as readonly string[]).includes(claimed)) problem('brand', `must be one of: ${CARD_BRANDS.join(', ')}.`);
    else if (brand !== null && claimed !== brand) problem('brand', 'does not match the brand of the card number.');
  }

  const month = String(input.expirationMonth ?? '');
  const year = String(input.expirationYear ?? '');
  // The month is checked against a valid year (and the year against a valid month) so that
  // both format errors are reported at once.
  const monthOk = validateExpiry(month, '2000', now).ok;
  const yearOk = validateExpiry('01', year, now).ok;
  if (!monthOk) problem('expirationMonth', 'must be two digits from 01 to 12.');
  if (!yearOk) problem('expirationYear', 'must be two or four digits.');
  const expiry = monthOk && yearOk ? validateExpiry(month, year, now) : undefined;
  if (expiry?.ok && expiry.expired) problem('expirationMonth', `is past: the card expired at the end of ${expiry.month}/${expiry.year}.`);

  const cvv = input.securityCode;
  if (cvv !== undefined) {
    if (typeof cvv !== 'string' || !DIGITS.test(cvv)) problem('securityCode', 'must contain digits only.');
    else if (brand !== null && cvv.length !== cvvLength(brand)) problem('securityCode', `must have ${cvvLength(brand)} digits for ${brand} cards.`);
    else if (brand === null && (cvv.length < 3 || cvv.length > 4)) problem('securityCode', 'must have 3 or 4 digits.');
  }

  if (problems.length > 0 || brand === null || !expiry?.ok) throw invalid(problems);
  return {
    pan,
    brand,
    expMonth: expiry.month,
    expYear: expiry.year,
    ...(cvv !== undefined ? { cvv } : {}),
    bin: pan.slice(0, 6),
    last4: pan.slice(-4),
    panLength: pan.length,
  };
}

const fingerprintKeys = new WeakMap<DataCipher, Buffer>();

/**
 * HMAC-SHA256 of the PAN under the card-fingerprint lookup key (sealed under DATA_KEY in the
 * database, the same across DATA_KEY rotations: src/security/keyring.ts): the same card gives
 * the same fingerprint (anti-fraud velocity, blocklists, stored payments) while the value reveals
 * nothing without the key. The key is cached per cipher.
 */
export function cardFingerprint(cipher: DataCipher, pan: string): string {
  let key = fingerprintKeys.get(cipher);
  if (!key) {
    key = cipher.lookupKey('card-fingerprint');
    fingerprintKeys.set(cipher, key);
  }
  return createHmac('sha256', key).update(pan).digest('hex');
}

/** A card as a caller sent it, checked (validateCard) and fingerprinted: what tokens, the vault and payments hand around. */
export function checkedCard(input: CardInput, now: Date, tagPrefix: string, cipher: DataCipher): Card {
  const card = validateCard(input, now, tagPrefix);
  return { ...card, fingerprint: cardFingerprint(cipher, card.pan) };
}

/**
 * A payment's own `brand` and `securityCode` must agree with the card they name (a stored or
 * encrypted one); the securityCode sent is the one charged.
 */
export function agreeingCard<C extends Card>(card: C, claims: { brand?: string; securityCode?: string }): C {
  if (claims.brand !== undefined && claims.brand !== card.brand) {
    throw invalid('cardInfo.brand', `brand ${claims.brand} does not match the card number.`);
  }
  if (claims.securityCode === undefined) return card;
  if (!isValidCvv(claims.securityCode, card.brand)) {
    throw invalid('cardInfo.securityCode', `securityCode must have ${card.brand === 'amex' ? 4 : 3} digits for ${card.brand}.`);
  }
  return { ...card, cvv: claims.securityCode };
}
