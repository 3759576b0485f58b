import type { CardBrand } from '../../domain/cards.js';
import { liabilityShift, type ThreeDsState, type ThreeDsStatus } from '../../domain/three-ds.js';
import type { AuthenticationData, DeviceInfo } from '../../threeds/types.js';

/** The JSON `payments.three_ds` keeps; its shape and the rules that settle it are in src/domain/three-ds.ts. */
export type { ThreeDsState };

/** What the gateway does about 3DS for a payment, decided from the request before anything is written (./request-rules.ts). */
export type ThreeDsPlan =
  | { kind: 'none' }
  | { kind: 'external'; state: ThreeDsState }
  | { kind: 'dataOnly'; state: ThreeDsState }
  | { kind: 'authenticate'; state: ThreeDsState; device: DeviceInfo };

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
