import type { CardBrand } from '../domain/cards.js';

/**
 * The acquirer contract (after Medusa's IPaymentProvider): typed inputs and outputs, an
 * idempotency key on every call, and results mapped to a fixed set of ABECS return codes.
 * A real acquirer is one more implementation of this interface; nothing else changes.
 */
export type ReturnCode = '00' | '05' | '14' | '41' | '43' | '46' | '51' | '54' | '57' | '59' | '96';

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
  '96': 'System failure',
};

export interface CallContext {
  /** The payment id for an authorization; `cancel:<paymentId>` for its cancel. A retry with the same key never charges twice. */
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
  /** Sandbox only: a stored card's forced outcome (POST /sandbox/vaults/{id}/outcome). */
  forcedReturnCode?: ReturnCode;
}

export type AuthorizeResult =
  | {
      outcome: 'approved';
      returnCode: '00';
      returnMessage: string;
      authorizationCode: string; // 6 characters
      nsu: string; // unique numeric string
      acquirerReference: string;
    }
  | {
      outcome: 'declined';
      returnCode: Exclude<ReturnCode, '00' | '96'>;
      returnMessage: string;
      nsu: string;
      acquirerReference: string;
    }
  | {
      /** The acquirer could not process it (96, timeout, network): nothing was charged. */
      outcome: 'failed';
      returnCode: '96';
      returnMessage: string;
    };

export interface CancelRequest {
  acquirerReference: string;
  amount: number; // cents, the full amount
}

export type CancelResult = { outcome: 'canceled' } | { outcome: 'failed'; returnMessage: string };

export interface Acquirer {
  authorize(request: AuthorizeRequest, context: CallContext): Promise<AuthorizeResult>;
  cancel(request: CancelRequest, context: CallContext): Promise<CancelResult>;
  /**
   * What the acquirer recorded under an idempotency key, or null when it never received the
   * call. Used to settle a payment left Pending by a crash without charging twice.
   */
  lookup(idempotencyKey: string): Promise<AuthorizeResult | null>;
}
