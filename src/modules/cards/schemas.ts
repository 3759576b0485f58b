import { Type } from '@sinclair/typebox';
import { CARD_BRANDS } from './card-data.js';
import { CARD_KEY_ALGORITHM, MAX_ENCRYPTED_CARD_LENGTH } from './keys.js';
import { CARDHOLDER_NAME_MAX } from './vault.js';

/*
 * Sizes follow the seeds (cardInfo fields of the card payment). Digits, Luhn, brand, month range
 * and expiry are checked by the service, which names the exact problem of each field.
 */
export const EncryptedCard = Type.String({
  minLength: 1,
  maxLength: MAX_ENCRYPTED_CARD_LENGTH,
  description: 'Base64 of RSA-OAEP (SHA-256, MGF1-SHA-256) over the UTF-8 JSON {"number", "expirationMonth", "expirationYear", "securityCode"?}, with the key from GET /cards/public-key',
});

export const PlainCardFields = {
  cardNumber: Type.Optional(Type.String({ minLength: 1, maxLength: 19, description: 'PAN, digits only' })),
  expirationMonth: Type.Optional(Type.String({ minLength: 2, maxLength: 2, description: 'two digits, 01 to 12' })),
  expirationYear: Type.Optional(Type.String({ minLength: 2, maxLength: 4, description: 'two or four digits' })),
  securityCode: Type.Optional(Type.String({ minLength: 1, maxLength: 4, description: 'CVV: 3 digits, 4 for amex' })),
};

export const Brand = Type.String({ maxLength: 10, description: CARD_BRANDS.join(', ') });

export const NumberToken = Type.Object({
  numberToken: Type.String(),
  brand: Type.String({ description: CARD_BRANDS.join(', ') }),
  maskedNumber: Type.String({ description: 'first 6 digits, one * per hidden digit, last 4' }),
  expiresAt: Type.String({ format: 'date-time' }),
});

export const VaultCard = Type.Object({
  vaultId: Type.String({ minLength: 36, maxLength: 36 }),
  brand: Type.String(),
  maskedNumber: Type.String(),
  expirationMonth: Type.String(),
  expirationYear: Type.String({ description: 'four digits' }),
  cardholderName: Type.String({ maxLength: CARDHOLDER_NAME_MAX }),
});

export const VaultIdParams = Type.Object({ vaultId: Type.String({ minLength: 1, maxLength: 36 }) });

export const CardPublicKey = Type.Object({
  keyId: Type.String(),
  algorithm: Type.Literal(CARD_KEY_ALGORITHM),
  publicKey: Type.String({ description: 'PEM (SPKI) of a 2048-bit RSA key' }),
});

/** One card source of a zero auth (at the top level, or inside `cardInfo`). */
const ZeroAuthSourceFields = {
  numberToken: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Read, not used up' })),
  vaultId: Type.Optional(Type.String({ minLength: 1, maxLength: 36 })),
  encryptedCard: Type.Optional(EncryptedCard),
  ...PlainCardFields,
  cardholderName: Type.Optional(Type.String({ minLength: 1, maxLength: CARDHOLDER_NAME_MAX })),
  brand: Type.Optional(Brand),
};

export const ZeroAuthBody = Type.Object({
  ...ZeroAuthSourceFields,
  cardInfo: Type.Optional(Type.Object(ZeroAuthSourceFields, { description: 'The same fields, grouped as a payment groups them' })),
});

export const ZeroAuthAnswer = Type.Object({
  brand: Type.String(),
  cardNumber: Type.String({ description: 'Masked: first 6 digits, one * per hidden digit, last 4' }),
  transactionType: Type.Literal('credit'),
  cardAuthSuccess: Type.Boolean({ description: 'The issuer would accept the card now' }),
  returnCode: Type.String({ description: "00 when verified; otherwise the decline's ABECS code (96: the acquirer could not check it)" }),
  message: Type.String(),
  declineCategory: Type.Optional(Type.Union([Type.Literal('retryable'), Type.Literal('final')], { description: 'When refused: whether the card may be tried again (ABECS Normativo 21)' })),
});
