import type { AuthenticateRequest, AuthenticateResult, ChallengeResult } from '../types.js';

/**
 * EMVCo 3DS 2.2 messages as this connector sends and reads them (EMV 3-D Secure Protocol and
 * Core Functions Specification v2.2.0, table A.1: field names as the specification spells them).
 * Browser channel (deviceChannel 02), payment authentication (messageCategory 01).
 */
export const MESSAGE_VERSION = '2.2.0';

export interface EmvcoARes {
  messageType: 'ARes';
  messageVersion: string;
  threeDSServerTransID: string;
  acsTransID?: string;
  dsTransID?: string;
  /** Y authenticated, A attempted, C challenge, N not authenticated, U unavailable, R rejected, I informational (Data Only). */
  transStatus: 'Y' | 'A' | 'C' | 'N' | 'U' | 'R' | 'I';
  transStatusReason?: string;
  eci?: string;
  authenticationValue?: string;
  acsURL?: string;
}

export interface EmvcoRReq {
  messageType: 'RReq';
  messageVersion: string;
  threeDSServerTransID: string;
  acsTransID: string;
  dsTransID?: string;
  transStatus: 'Y' | 'N' | 'U' | 'R' | 'A';
  eci?: string;
  authenticationValue?: string;
}

/** YYYYMMDDHHMMSS in UTC (the specification's purchaseDate). */
function purchaseDateOf(at: Date): string {
  return at.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

export function areqOf(r: AuthenticateRequest, requestorTransId: string): Record<string, unknown> {
  return {
    messageType: 'AReq',
    messageVersion: MESSAGE_VERSION,
    deviceChannel: '02',
    messageCategory: '01',
    threeDSRequestorTransID: requestorTransId,
    threeDSRequestorChallengeInd: r.authenticationType,
    threeDSCompInd: 'U',
    transType: '01',
    acctNumber: r.card.pan,
    cardExpiryDate: `${r.card.expYear.slice(-2)}${r.card.expMonth}`,
    cardholderName: r.card.holderName,
    purchaseAmount: String(r.amount),
    purchaseCurrency: '986',
    purchaseExponent: '2',
    purchaseDate: purchaseDateOf(r.purchaseDate),
    notificationURL: r.notificationUrl,
    browserAcceptHeader: r.device.browserAcceptHeader,
    browserColorDepth: r.device.browserColorDepth,
    browserJavaEnabled: r.device.browserJavaEnabled,
    browserJavascriptEnabled: true,
    browserLanguage: r.device.browserLanguage,
    browserScreenHeight: r.device.browserScreenHeight,
    browserScreenWidth: r.device.browserScreenWidth,
    browserTZ: r.device.browserTimeZone,
    browserUserAgent: r.device.browserUserAgent,
    browserIP: r.device.httpBrowserIp,
  };
}

const REASONS: Record<string, string> = { N: 'the issuer did not authenticate the cardholder (transStatus N)', R: 'the issuer rejected the authentication (transStatus R)', U: "the issuer's authentication server is unavailable (transStatus U)" };

export function aresOf(ares: EmvcoARes): AuthenticateResult {
  const transactionId = ares.threeDSServerTransID;
  const version = ares.messageVersion;
  if ((ares.transStatus === 'Y' || ares.transStatus === 'A') && ares.eci && ares.authenticationValue) {
    return { kind: 'authenticated', attempt: ares.transStatus === 'A', data: { eci: ares.eci, cavv: ares.authenticationValue, version, transactionId, ...(ares.dsTransID ? { dsTransactionId: ares.dsTransID } : {}) } };
  }
  if (ares.transStatus === 'C' && ares.acsURL && ares.acsTransID) {
    const creq = { threeDSServerTransID: transactionId, acsTransID: ares.acsTransID, messageType: 'CReq', messageVersion: version, challengeWindowSize: '05' };
    return { kind: 'challenge', transactionId, version, acsUrl: ares.acsURL, creq: Buffer.from(JSON.stringify(creq)).toString('base64url') };
  }
  return { kind: 'failed', transactionId, version, ...(ares.eci ? { eci: ares.eci } : {}), reason: REASONS[ares.transStatus] ?? `the 3DS server answered transStatus ${ares.transStatus}` };
}

/** The transaction a posted CRes names (base64url JSON), or undefined when it is not a CRes. */
export function cresTransactionOf(cres: string): string | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(cres, 'base64url').toString('utf8')) as { messageType?: string; threeDSServerTransID?: unknown };
    return parsed.messageType === 'CRes' && typeof parsed.threeDSServerTransID === 'string' ? parsed.threeDSServerTransID : undefined;
  } catch {
    return undefined;
  }
}

export function rreqResultOf(rreq: EmvcoRReq, transactionId: string): ChallengeResult {
  if (rreq.threeDSServerTransID !== transactionId) return { kind: 'failed', transactionId, reason: 'the 3DS server answered for another transaction' };
  if (rreq.transStatus === 'Y' && rreq.eci && rreq.authenticationValue) {
    return { kind: 'authenticated', data: { eci: rreq.eci, cavv: rreq.authenticationValue, version: rreq.messageVersion, transactionId, ...(rreq.dsTransID ? { dsTransactionId: rreq.dsTransID } : {}) } };
  }
  return { kind: 'failed', transactionId, ...(rreq.eci ? { eci: rreq.eci } : {}), reason: rreq.transStatus === 'N' ? 'the cardholder did not pass the challenge (transStatus N)' : (REASONS[rreq.transStatus] ?? `the challenge ended with transStatus ${rreq.transStatus}`) };
}
