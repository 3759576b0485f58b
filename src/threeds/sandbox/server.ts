import { randomBytes, randomUUID } from 'node:crypto';
import type { CardBrand } from '../../domain/cards.js';
import { eciTable } from '../../domain/three-ds.js';
import { signMessage, verifyMessage } from '../signed-message.js';
import { ChallengeRefused, type AuthenticateRequest, type AuthenticateResult, type ChallengeResult, type ThreeDsServer } from '../types.js';

/**
 * The sandbox 3DS server: test cards decide the issuer's answer (docs/integrator-guide.md
 * lists them), any other card authenticates without friction. A challenge is shown by the
 * gateway itself (./acs-page.ts) and asks a one-time code: SANDBOX_OTP passes, anything else
 * fails. The ACS is stateless: the CReq and the CRes it hands the browser are signed with the
 * sandbox's key, so the browser can carry them and cannot change them.
 */
export const SANDBOX_THREEDS_CARDS: Record<string, 'frictionless' | 'attempt' | 'challenge' | 'fail' | 'unavailable'> = {
  '4000000000001000': 'frictionless',
  '5200000000001005': 'frictionless',
  '4000000000001018': 'attempt',
  '5200000000001013': 'attempt',
  '4000000000001091': 'challenge',
  '5200000000001096': 'challenge',
  '4000000000001109': 'fail',
  '5200000000001104': 'fail',
  '4000000000001125': 'unavailable',
  '5200000000001120': 'unavailable',
};

/** The one-time code the sandbox challenge accepts. */
export const SANDBOX_OTP = '123456';
export const SANDBOX_VERSION = '2.2.0';

/** What the sandbox ACS signs into a CReq: the challenge it must show and where its result goes. */
export interface SandboxCReq {
  messageType: 'CReq';
  messageVersion: string;
  threeDSServerTransID: string;
  acsTransID: string;
  challengeWindowSize: string;
  brand: CardBrand;
  notificationUrl: string;
}

/** The signed result the ACS posts back (the CRes, carrying the RReq's values in the sandbox). */
export interface SandboxCRes {
  messageType: 'CRes';
  messageVersion: string;
  threeDSServerTransID: string;
  acsTransID: string;
  transStatus: 'Y' | 'N';
  eci?: string;
  authenticationValue?: string;
}

const cavv = () => randomBytes(20).toString('base64');

export class SandboxThreeDsServer implements ThreeDsServer {
  constructor(
    private readonly key: Buffer,
    /** Where the gateway serves the sandbox ACS page (acsUrl). */
    private readonly acsUrl: string,
  ) {}

  async authenticate(request: AuthenticateRequest): Promise<AuthenticateResult> {
    const transactionId = randomUUID();
    const table = eciTable(request.card.brand);
    const card = SANDBOX_THREEDS_CARDS[request.card.pan];
    if (card === 'fail') return { kind: 'failed', transactionId, version: SANDBOX_VERSION, eci: table.none, reason: 'the issuer did not authenticate the cardholder (transStatus N)' };
    if (card === 'unavailable') return { kind: 'failed', transactionId, version: SANDBOX_VERSION, reason: "the issuer's authentication server is unavailable (transStatus U)" };
    const wantsChallenge = request.authenticationType === '03' || request.authenticationType === '04';
    if (card === 'challenge' || wantsChallenge) {
      const creq: SandboxCReq = {
        messageType: 'CReq',
        messageVersion: SANDBOX_VERSION,
        threeDSServerTransID: transactionId,
        acsTransID: randomUUID(),
        challengeWindowSize: '05',
        brand: request.card.brand,
        notificationUrl: request.notificationUrl,
      };
      return { kind: 'challenge', transactionId, version: SANDBOX_VERSION, acsUrl: this.acsUrl, creq: signMessage(this.key, creq) };
    }
    const attempt = card === 'attempt';
    return {
      kind: 'authenticated',
      attempt,
      data: { eci: attempt ? table.attempted : table.authenticated, cavv: cavv(), version: SANDBOX_VERSION, transactionId, dsTransactionId: randomUUID() },
    };
  }

  /** The ACS's side: a CReq it issued, or undefined for anything else. */
  openCReq(creq: string): SandboxCReq | undefined {
    const payload = verifyMessage<SandboxCReq>(this.key, creq);
    return payload?.messageType === 'CReq' ? payload : undefined;
  }

  /** The ACS's side: the signed CRes of a challenge answered with `otp`. */
  answerChallenge(creq: SandboxCReq, otp: string): string {
    const passed = otp === SANDBOX_OTP;
    const cres: SandboxCRes = {
      messageType: 'CRes',
      messageVersion: creq.messageVersion,
      threeDSServerTransID: creq.threeDSServerTransID,
      acsTransID: creq.acsTransID,
      transStatus: passed ? 'Y' : 'N',
      ...(passed ? { eci: eciTable(creq.brand).authenticated, authenticationValue: cavv() } : { eci: eciTable(creq.brand).none }),
    };
    return signMessage(this.key, cres);
  }

  async challengeResult(cres: string): Promise<ChallengeResult> {
    const payload = verifyMessage<SandboxCRes>(this.key, cres);
    if (!payload || payload.messageType !== 'CRes') throw new ChallengeRefused('the CRes is not signed by the sandbox ACS');
    const transactionId = payload.threeDSServerTransID;
    if (payload.transStatus !== 'Y' || !payload.authenticationValue || !payload.eci) {
      return { kind: 'failed', transactionId, eci: payload.eci, reason: 'the cardholder did not pass the challenge (transStatus N)' };
    }
    return { kind: 'authenticated', data: { eci: payload.eci, cavv: payload.authenticationValue, version: payload.messageVersion, transactionId } };
  }
}
