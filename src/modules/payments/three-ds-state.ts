import type { CardBrand } from '../../domain/cards.js';
import { DEVICE_FIELDS, eciTable, externalProblems, liabilityShift, statusOfEci, type AuthenticationType, type ThreeDsStatus } from '../../domain/three-ds.js';
import { ApiError } from '../../http/errors.js';
import type { AuthenticationData, DeviceInfo } from '../../threeds/types.js';
import type { PaymentBody } from './schemas.js';

/**
 * A payment's 3-D Secure, as `payments.three_ds` keeps it (JSON): what the integrator asked,
 * and what the authentication established. The CAVV and the sealed card are for the acquirer
 * and never leave in an answer.
 */
export interface ThreeDsState {
  authenticationType: AuthenticationType;
  code3DS?: string;
  returnUrl?: string;
  dataOnly?: boolean;
  /** The authentication came with the request (done elsewhere). */
  external?: boolean;
  status?: ThreeDsStatus;
  eci?: string | null;
  version?: string | null;
  liabilityShift?: boolean;
  transactionId?: string;
  dsTransactionId?: string;
  cavv?: string;
  xid?: string;
  /** Why the authentication failed. */
  reason?: string;
  /** While the challenge is open. */
  acsUrl?: string;
  creq?: string;
  sealedCard?: string;
}

/** What the gateway does about 3DS for a payment, decided from the request before anything is written. */
export type ThreeDsPlan =
  | { kind: 'none' }
  | { kind: 'external'; state: ThreeDsState }
  | { kind: 'dataOnly'; state: ThreeDsState }
  | { kind: 'authenticate'; state: ThreeDsState; device: DeviceInfo };

/**
 * Checks the `threeDs` and `deviceInfo` blocks (a 400 naming the field, before anything is
 * recorded) and answers the plan. `hasServer`: a 3DS server is configured.
 */
export function planThreeDs(body: PaymentBody, options: { sandbox: boolean; hasServer: boolean }): ThreeDsPlan {
  const asked = body.threeDs;
  if (!asked) return { kind: 'none' };
  const problems: [string, string][] = [];
  if (asked.returnUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(asked.returnUrl);
    } catch {
      problems.push(['threeDs.returnUrl', 'returnUrl must be an absolute URL.']);
    }
    if (url && url.protocol !== 'https:' && !(options.sandbox && url.protocol === 'http:')) {
      problems.push(['threeDs.returnUrl', options.sandbox ? 'returnUrl must be an http(s) URL.' : 'returnUrl must be an https URL.']);
    }
  }
  if (asked.dataOnly && asked.external) problems.push(['threeDs.dataOnly', 'dataOnly sends the data with no authentication: it cannot come with an external authentication.']);
  if (asked.external) problems.push(...externalProblems(asked.external));
  const state: ThreeDsState = {
    authenticationType: (asked.authenticationType ?? '01') as AuthenticationType,
    ...(asked.code3DS !== undefined ? { code3DS: asked.code3DS } : {}),
    ...(asked.returnUrl !== undefined ? { returnUrl: asked.returnUrl } : {}),
  };
  const runs = !asked.external && !asked.dataOnly;
  if (runs) {
    if (!options.hasServer) problems.push(['threeDs', 'This gateway has no 3DS server configured (THREEDS_SERVER): send an external authentication or dataOnly.']);
    const device = body.deviceInfo as Partial<DeviceInfo> | undefined;
    if (!device) problems.push(['deviceInfo', 'deviceInfo is required when the gateway authenticates the buyer.']);
    else for (const field of DEVICE_FIELDS) if (device[field] === undefined || device[field] === '') problems.push([`deviceInfo.${field}`, `deviceInfo.${field} is required when the gateway authenticates the buyer.`]);
  }
  if (problems.length) throw new ApiError(400, problems.map(([tag, description]) => ({ tag, description })));
  if (asked.external) {
    const { cavv, eci, version, xid, dsTransactionId } = asked.external;
    return { kind: 'external', state: { ...state, external: true, cavv, eci, version, ...(xid ? { xid } : {}), ...(dsTransactionId ? { dsTransactionId } : {}) } };
  }
  if (asked.dataOnly) return { kind: 'dataOnly', state: { ...state, dataOnly: true } };
  // EMVCo's numeric browser fields are strings; a number sent for one is taken as its digits.
  const device = Object.fromEntries(Object.entries(body.deviceInfo!).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v])) as unknown as DeviceInfo;
  return { kind: 'authenticate', state, device };
}

/** The state once the brand is known: an external authentication's status and liability come from its eci. */
export function settleKnown(plan: ThreeDsPlan, brand: CardBrand): ThreeDsState | undefined {
  if (plan.kind === 'external') {
    const eci = plan.state.eci!;
    return { ...plan.state, status: statusOfEci(eci), liabilityShift: liabilityShift(brand, eci) };
  }
  // Data Only: frictionless, no authentication value, the brand's "not authenticated" eci.
  if (plan.kind === 'dataOnly') return { ...plan.state, status: 'Silent', eci: eciTable(brand).dataOnly, version: '2.2.0', liabilityShift: false };
  if (plan.kind === 'authenticate') return plan.state;
  return undefined;
}

/** The state after an authentication that established `data`. */
export function authenticated(state: ThreeDsState, brand: CardBrand, data: AuthenticationData, status: ThreeDsStatus): ThreeDsState {
  const { acsUrl: _a, creq: _c, sealedCard: _s, ...rest } = state;
  return {
    ...rest,
    status,
    eci: data.eci,
    version: data.version,
    liabilityShift: liabilityShift(brand, data.eci),
    transactionId: data.transactionId,
    cavv: data.cavv,
    ...(data.dsTransactionId ? { dsTransactionId: data.dsTransactionId } : {}),
    ...(data.xid ? { xid: data.xid } : {}),
  };
}

/** The state after a failed authentication. */
export function failedState(state: ThreeDsState, reason: string, extra: { transactionId?: string; version?: string; eci?: string } = {}): ThreeDsState {
  const { acsUrl: _a, creq: _c, sealedCard: _s, ...rest } = state;
  return { ...rest, status: 'Fail', eci: extra.eci ?? null, version: extra.version ?? null, liabilityShift: false, reason, ...(extra.transactionId ? { transactionId: extra.transactionId } : {}) };
}

/** The answer's `threeDs` block. */
export function threeDsAnswer(json: string | null): { status: ThreeDsStatus; eci: string | null; version: string | null; liabilityShift: boolean; acsUrl?: string; creq?: string; transactionId?: string } | undefined {
  if (!json) return undefined;
  const s = JSON.parse(json) as ThreeDsState;
  return {
    // Recorded before the 3DS server answered (a crash in between): nothing was authenticated.
    status: s.status ?? 'Fail',
    eci: s.eci ?? null,
    version: s.version ?? null,
    liabilityShift: s.liabilityShift ?? false,
    ...(s.acsUrl ? { acsUrl: s.acsUrl, creq: s.creq } : {}),
    ...(s.transactionId ? { transactionId: s.transactionId } : {}),
  };
}

/** The message of a payment Denied because the buyer was not authenticated. */
export function notAuthenticatedMessage(reason: string): string {
  return `3-D Secure authentication failed: ${reason}. Nothing was sent to the acquirer or charged.`;
}
