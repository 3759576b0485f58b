import type { CardBrand } from '../domain/cards.js';
import type { DeclineCategory } from '../domain/decline-category.js';

/**
 * The acquirer contract (after Medusa's IPaymentProvider): typed inputs and outputs, an
 * idempotency key on every call, and results mapped to a fixed set of ABECS return codes.
 * Each connector (the sandbox, Cielo) maps its own answers onto these; nothing outside its
 * folder knows the party's field names.
 */
export type ReturnCode = '00' | '05' | '14' | '41' | '43' | '46' | '51' | '54' | '57' | '59' | '78' | '96';

export const RETURN_MESSAGES: Record<ReturnCode, string> = {
  '00': 'Approved',
  '05': 'Not authorized',
  '14': 'Invalid card',
  '41': 'Lost card',
  '43': 'Stolen card',
  '46': 'Card cancelled (closed account)',
  '51': 'Insufficient funds',
  '54': 'Expired card',
  '57': 'Transaction not permitted',
  '59': 'Suspected fraud',
  '78': 'Card blocked',
  '96': 'System failure',
};

export interface CallContext {
  /** The payment id for an authorization; `cancel:<paymentId>` for its cancel; the refund id for a refund. A retry with the same key never charges twice. */
  idempotencyKey: string;
}

export interface AuthorizeRequest {
  merchantId: string;
  amount: number; // cents
  installments: number;
  productType: 'avista' | 'lojista';
  card: {
    pan: string;
    brand: CardBrand;
    expMonth: string; // "01".."12"
    expYear: string; // four digits
    /** Present only when the payer gave it for this authorization; never stored. */
    cvv?: string;
    holderName: string;
  };
  /**
   * The buyer's 3-D Secure authentication (the gateway's or an external one), or `dataOnly`:
   * the data went to the issuer with no authentication. Absent for a sale without 3DS.
   */
  authentication?: AuthorizeAuthentication;
  /** Sandbox only: a stored card's forced outcome (POST /sandbox/vaults/{id}/outcome). */
  forcedReturnCode?: ReturnCode;
  /** Who started the charge (stored-credential indicators); a plain cardholder payment when left out. */
  initiator?: Initiator;
}

/**
 * Who started a charge, as the card networks ask of charges with stored credentials
 * (Mastercard's CIT/MIT categories): the cardholder (C1), saying whether this first charge
 * stores the card; or the merchant charging a stored card on a recurring agreement (M1), with
 * the network's reference of the first charge when the acquirer returned one.
 */
export type Initiator = { by: 'cardholder'; storesCard: boolean; storedCard: boolean } | { by: 'merchant'; recurring: true; networkReference?: string };

/** A card check without a charge (zero auth). */
export interface ZeroAuthRequest {
  merchantId: string;
  card: AuthorizeRequest['card'];
  /** The card is being stored for later charges (sent as the first use of a stored credential). */
  storing: boolean;
  /** Sandbox only: a stored card's forced outcome. */
  forcedReturnCode?: ReturnCode;
}

export interface ZeroAuthResult {
  /** The issuer would accept the card now. */
  valid: boolean;
  /** Ours: '00' valid, a decline's ABECS code, '96' when the acquirer could not check it. */
  returnCode: ReturnCode;
  returnMessage: string;
  /** The network's reference for later merchant-initiated charges, when returned. */
  networkReference?: string;
}

export interface AuthorizeAuthentication {
  dataOnly: boolean;
  eci?: string;
  /** CAVV/AAV, base64. */
  cavv?: string;
  version?: string;
  xid?: string;
  /** The 3DS server's transaction id (threeDSServerTransID). */
  referenceId?: string;
  dsTransactionId?: string;
}

export type AuthorizeResult =
  | {
      outcome: 'approved';
      returnCode: '00';
      returnMessage: string;
      authorizationCode: string; // 6 characters
      nsu: string; // unique numeric string
      acquirerReference: string;
      /** The network's reference of this charge (Cielo's IssuerTransactionId), for later merchant-initiated ones. */
      networkReference?: string;
    }
  | {
      outcome: 'declined';
      returnCode: Exclude<ReturnCode, '00' | '96'>;
      returnMessage: string;
      nsu: string;
      acquirerReference: string;
      /** From the connector's table of its own codes (ABECS Normativo 21): whether the card may be tried again. */
      declineCategory?: DeclineCategory;
      /** The issuer replaced the card (Cielo's Renova Fácil, `NewCard`): charge the new one instead. */
      newCard?: ReplacementCard;
    }
  | {
      /** The acquirer answered that it could not process it (96, a refused request): nothing was charged. */
      outcome: 'failed';
      declineCategory?: DeclineCategory;
      returnCode: '96';
      returnMessage: string;
    };

/** A replacement card an account updater returned. Lives in memory only until it is sealed in the vault. */
export interface ReplacementCard {
  pan: string;
  expMonth: string; // "01".."12"
  expYear: string; // four digits
}

export interface CancelRequest {
  merchantId: string;
  acquirerReference: string;
  amount: number; // cents, the full amount
}

export type CancelResult = { outcome: 'canceled' } | { outcome: 'failed'; returnMessage: string };

/** A partial or full refund of a captured sale (Cielo's partial void). */
export interface RefundRequest {
  merchantId: string;
  /** The sale's reference, as its authorization answered it. */
  acquirerReference: string;
  amount: number; // cents refunded now
  /**
   * Cents of the sale refunded before this refund, as we recorded them. An acquirer that keeps
   * no key per refund (Cielo shows only the sale's refunded total, VoidedAmount) tells this
   * refund apart by it: the gateway has one refund of a sale in flight at a time.
   */
  refundedBefore: number;
}

export type RefundResult = { outcome: 'refunded' } | { outcome: 'failed'; returnMessage: string };

export interface LookupRequest {
  merchantId: string;
  /** The authorization's idempotency key: our payment id (Cielo's MerchantOrderId). */
  idempotencyKey: string;
}

/**
 * The call got no answer. `sent: false` means the request never left (connection refused, no
 * such host): the acquirer cannot have acted on it. `sent: true` means it may have: the
 * outcome is unknown, never a decline, and must be looked up.
 */
export class AcquirerUnavailable extends Error {
  constructor(
    readonly sent: boolean,
    message: string,
  ) {
    super(message);
    this.name = 'AcquirerUnavailable';
  }
}

export interface Acquirer {
  /** Throws AcquirerUnavailable when no answer came. */
  authorize(request: AuthorizeRequest, context: CallContext): Promise<AuthorizeResult>;
  /** Checks a card without charging it. Throws AcquirerUnavailable when no answer came (nothing is charged either way). */
  zeroAuth?(request: ZeroAuthRequest): Promise<ZeroAuthResult>;
  /** Throws AcquirerUnavailable when no answer came (a cancel is safe to send again). */
  cancel(request: CancelRequest, context: CallContext): Promise<CancelResult>;
  /**
   * What the acquirer recorded under an authorization's idempotency key, or null when it has
   * no record of it. Throws AcquirerUnavailable when it cannot be asked: an unanswered lookup
   * never means "not received".
   */
  lookup(request: LookupRequest): Promise<AuthorizeResult | 'pending' | null>;
  /**
   * Where the acquirer can (the sandbox): records under an authorization's key that it was
   * never received, so a send still on its way is answered `failed` with `returnMessage`;
   * answers what the key now holds (the send's own answer, if it got there first). A remote
   * acquirer cannot, and leaves it out: its settle window covers a send in flight.
   */
  closeKey?(request: LookupRequest, returnMessage: string): Promise<AuthorizeResult | undefined>;
  /**
   * Refunds part or all of what is left of a captured sale, under the refund's id as the
   * idempotency key. Throws AcquirerUnavailable when no answer came: the refund may have been
   * made, and must be looked up (`lookupRefund`), never sent again blindly.
   */
  refund(request: RefundRequest, context: CallContext): Promise<RefundResult>;
  /**
   * What the acquirer recorded of this refund, or null when it has no record of it. Throws
   * AcquirerUnavailable when it cannot be asked (never read as "not received").
   */
  lookupRefund(request: RefundRequest, context: CallContext): Promise<RefundResult | null>;
  /**
   * Where the acquirer can (the sandbox), as `closeKey` for a refund: a refund still on its way
   * under the key is then refused; answers what the key holds.
   */
  closeRefund?(request: RefundRequest, context: CallContext, returnMessage: string): Promise<RefundResult>;
  /**
   * How long after an authorization (or a refund) was sent a "no record of it" can be believed: a request
   * still in flight (or a query replica lagging) could yet appear. 0 where the record is
   * written synchronously with the answer (the sandbox's ledger).
   */
  settleWindowMs(merchantId: string): Promise<number>;
}
