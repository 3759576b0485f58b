import { maskPan } from '../../domain/cards.js';
import { declineCategoryOf, type DeclineCategory } from '../../domain/decline-category.js';
import { invalid } from '../../domain/errors.js';
import type { Card } from './card-data.js';
import type { CardService } from './service.js';
import { CARDHOLDER_NAME_MAX } from './vault.js';

/** The card sources of a zero auth: exactly one, at the top level or inside `cardInfo`. */
export interface ZeroAuthSource {
  numberToken?: string;
  vaultId?: string;
  encryptedCard?: string;
  cardNumber?: string;
  expirationMonth?: string;
  expirationYear?: string;
  securityCode?: string;
  cardholderName?: string;
  brand?: string;
}

export interface ZeroAuthAnswer {
  brand: string;
  cardNumber: string;
  transactionType: 'credit';
  cardAuthSuccess: boolean;
  returnCode: string;
  message: string;
  /** Set when the card was refused: whether trying it again may succeed. */
  declineCategory?: DeclineCategory;
}

/** A zero auth sent without a name on the card (a numberToken, a plain card): the issuer checks the number, expiry and CVV. */
const NO_HOLDER_NAME = 'CARDHOLDER';

/**
 * POST {gateway}/v1/zero-auth: checks a card with the acquirer's zero auth, charging nothing.
 * A numberToken is read, not used up; a vaultId's card is checked as stored (its sandbox
 * outcome forced, when one is set).
 */
export async function zeroAuth(cards: CardService, merchantId: string, input: ZeroAuthSource & { cardInfo?: ZeroAuthSource }): Promise<ZeroAuthAnswer> {
  const { cardInfo, ...top } = input;
  const source: ZeroAuthSource = { ...top, ...(cardInfo ?? {}) };
  const given = [
    source.numberToken !== undefined,
    source.vaultId !== undefined,
    source.encryptedCard !== undefined,
    source.cardNumber !== undefined || source.expirationMonth !== undefined || source.expirationYear !== undefined,
  ].filter(Boolean).length;
  if (given !== 1) {
    throw invalid('cardInfo', `Send exactly one card source: numberToken, vaultId, encryptedCard, or cardNumber with expirationMonth and expirationYear (${given === 0 ? 'none was sent' : `${given} were sent`}).`);
  }
  const name = source.cardholderName?.trim();
  if (name !== undefined && (name.length < 1 || name.length > CARDHOLDER_NAME_MAX)) {
    throw invalid('cardholderName', `cardholderName must have 1 to ${CARDHOLDER_NAME_MAX} characters.`);
  }
  let card: Card;
  let holderName = name;
  let forced: string | null = null;
  if (source.vaultId !== undefined) {
    const stored = await cards.storedCard(merchantId, source.vaultId, 'vaultId');
    card = stored;
    holderName ??= stored.cardholderName;
    forced = stored.sandboxReturnCode;
  } else if (source.numberToken !== undefined) {
    card = await cards.peekToken(merchantId, source.numberToken, 'numberToken');
  } else {
    card = await cards.readCard({ encryptedCard: source.encryptedCard, cardNumber: source.cardNumber, expirationMonth: source.expirationMonth, expirationYear: source.expirationYear, securityCode: source.securityCode, brand: source.brand }, true);
  }
  const cvv = source.securityCode ?? card.cvv;
  const result = await cards.verify({
    merchantId,
    card: { pan: card.pan, brand: card.brand, expMonth: card.expMonth, expYear: card.expYear, ...(cvv !== undefined ? { cvv } : {}), holderName: holderName ?? NO_HOLDER_NAME },
    storing: false,
    ...(forced ? { forcedReturnCode: forced as never } : {}),
  });
  return {
    brand: card.brand,
    cardNumber: maskPan(card.pan),
    transactionType: 'credit',
    cardAuthSuccess: result.valid,
    returnCode: result.returnCode,
    message: result.returnMessage,
    ...(result.valid ? {} : { declineCategory: declineCategoryOf(result.returnCode) ?? 'final' }),
  };
}
