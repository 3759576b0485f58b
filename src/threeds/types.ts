import type { CardBrand } from '../domain/cards.js';
import type { AuthenticationType } from '../domain/three-ds.js';

/**
 * The 3DS server contract, after the acquirer's (src/acquirer/types.ts): the gateway asks a
 * 3DS server to authenticate a card-not-present sale (EMVCo's AReq/ARes), hands the buyer's
 * browser a challenge when the issuer wants one (CReq to the ACS), and reads the challenge's
 * result when it is posted back to us (CRes, checked as the server vouches for it). Each
 * connector (the sandbox, an EMVCo 3DS server over HTTP) maps its own messages onto these
 * types; nothing outside its folder knows the party's field names.
 */

export interface DeviceInfo {
  browserAcceptHeader: string;
  browserColorDepth: string;
  browserJavaEnabled: boolean;
  browserLanguage: string;
  browserScreenHeight: string;
  browserScreenWidth: string;
  browserTimeZone: string;
  browserUserAgent: string;
  httpBrowserIp: string;
}

export interface AuthenticateRequest {
  merchantId: string;
  amount: number; // cents, BRL
  card: { pan: string; brand: CardBrand; expMonth: string; expYear: string; holderName: string };
  authenticationType: AuthenticationType;
  device: DeviceInfo;
  /** Where the ACS posts the challenge's result (our public notification endpoint). */
  notificationUrl: string;
  /** Business time of the purchase. */
  purchaseDate: Date;
}

/** What an authentication established: the values the acquirer receives with the authorization. */
export interface AuthenticationData {
  eci: string;
  /** CAVV/AAV (base64). */
  cavv: string;
  version: string;
  /** The 3DS server's transaction id (threeDSServerTransID): Cielo's ReferenceId. */
  transactionId: string;
  dsTransactionId?: string;
  /** 3DS 1 only; a 3DS 2 authentication has none. */
  xid?: string;
}

export type AuthenticateResult =
  /** transStatus Y (frictionless) or A (attempt): authorize with the data. */
  | { kind: 'authenticated'; data: AuthenticationData; attempt: boolean }
  /** transStatus C: the buyer's browser must post `creq` to `acsUrl`. */
  | { kind: 'challenge'; transactionId: string; version: string; acsUrl: string; creq: string }
  /** transStatus N, R or U (the issuer's server unavailable): no authentication, nothing to authorize. */
  | { kind: 'failed'; transactionId?: string; version?: string; eci?: string; reason: string };

/** A challenge's result as posted to our notification endpoint (the form's `cres` field). */
export type ChallengeResult =
  | { kind: 'authenticated'; data: AuthenticationData }
  | { kind: 'failed'; transactionId: string; reason: string; eci?: string };

/** No answer came from the 3DS server (unreachable, timeout, an answer that is not one). */
export class ThreeDsUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ThreeDsUnavailable';
  }
}

/** A posted CRes the 3DS server does not vouch for (bad signature, unknown transaction). */
export class ChallengeRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChallengeRefused';
  }
}

export interface ThreeDsServer {
  /** Throws ThreeDsUnavailable when no answer came (the sale is then not authenticated). */
  authenticate(request: AuthenticateRequest, context: { idempotencyKey: string }): Promise<AuthenticateResult>;
  /**
   * The result of a challenge from the CRes posted back (its transaction named inside it):
   * checked as the server vouches for it (its signature, or its own record of the ACS's RReq).
   * Throws ChallengeRefused when it does not; ThreeDsUnavailable when the server cannot be asked.
   */
  challengeResult(cres: string): Promise<ChallengeResult>;
}

/** The 3DS server (undefined: none configured, only external authentications are taken) and where its results come back. */
export interface ThreeDsDeps {
  server: ThreeDsServer | undefined;
  /** Our public notification endpoint (the ACS posts the CRes there). */
  notificationUrl: string;
  challengeTimeoutMs: number;
  /** Sandbox: a returnUrl may be plain http. */
  sandbox: boolean;
}
