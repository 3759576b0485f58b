import type { CardBrand } from './cards.js';

/**
 * EMV 3-D Secure 2 rules with no I/O: what an authentication's ECI means, whose liability a
 * sale carries after it, and the shape checks of an authentication done elsewhere.
 */

/** The answer block's statuses: authenticated without friction, attempted, challenged (pending), failed. */
export type ThreeDsStatus = 'Silent' | 'Attempt' | 'Challenge' | 'Fail';

/** EMVCo's threeDSRequestorChallengeInd as the API names it: 01 no preference, 02 no challenge, 03 challenge wanted, 04 challenge mandated. */
export type AuthenticationType = '01' | '02' | '03' | '04';

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

/** What a sale's 3DS asks, as far as its settling needs to know (the payments module's plan carries more). */
export type ThreeDsAsked = { kind: 'none' } | { kind: 'external' | 'dataOnly' | 'authenticate'; state: ThreeDsState };

/**
 * A sale's 3DS once its card's brand is known, before anything is sent: an external
 * authentication's status and liability come from its eci; Data Only is frictionless, with no
 * authentication value and the brand's "not authenticated" eci; a gateway-run authentication is
 * settled by its own call.
 */
export function knownThreeDs(asked: ThreeDsAsked, brand: CardBrand): ThreeDsState | undefined {
  if (asked.kind === 'external') {
    const eci = asked.state.eci!;
    return { ...asked.state, status: statusOfEci(eci), liabilityShift: liabilityShift(brand, eci) };
  }
  if (asked.kind === 'dataOnly') return { ...asked.state, status: 'Silent', eci: eciTable(brand).dataOnly, version: '2.2.0', liabilityShift: false };
  if (asked.kind === 'authenticate') return asked.state;
  return undefined;
}

/** Mastercard writes its ECI 02 (authenticated) / 01 (attempted) / 00; the others (Visa, Amex, Elo, Hipercard) 05 / 06 / 07. */
const MASTERCARD_ECI = { authenticated: '02', attempted: '01', none: '00', dataOnly: '04' } as const;
const VISA_ECI = { authenticated: '05', attempted: '06', none: '07', dataOnly: '07' } as const;

export function eciTable(brand: CardBrand): { authenticated: string; attempted: string; none: string; dataOnly: string } {
  return brand === 'mastercard' ? MASTERCARD_ECI : VISA_ECI;
}

/** The status an ECI reports: an authentication (05/02), an attempt (06/01), or no authentication (anything else). */
export function statusOfEci(eci: string): ThreeDsStatus {
  if (eci === '05' || eci === '02') return 'Silent';
  if (eci === '06' || eci === '01') return 'Attempt';
  return 'Fail';
}

/**
 * Whether the issuer takes the fraud liability of a sale after this authentication. An
 * authenticated sale (Silent, or a challenge passed) always shifts it. An attempt (the issuer's
 * ACS did not take part and the network stood in) shifts it under Visa's rule, which Amex, Elo
 * and Hipercard follow (ECI 06); Mastercard's attempt (ECI 01) does not. Data Only never does.
 */
export function liabilityShift(brand: CardBrand, eci: string | null | undefined): boolean {
  if (!eci) return false;
  const table = eciTable(brand);
  if (eci === table.authenticated) return true;
  return brand !== 'mastercard' && eci === table.attempted;
}

/** A CAVV/AAV: base64 of the 20-byte value (28 characters) or its 40 hex digits. */
const CAVV = /^(?:[A-Za-z0-9+/]{27}=|[A-Za-z0-9+/]{28}|[0-9a-fA-F]{40})$/;
const ECI = /^[0-9]{2}$/;
const VERSION = /^2(?:\.[0-9]{1,2}(?:\.[0-9]{1,2})?)?$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export interface ExternalAuthentication {
  cavv: string;
  eci: string;
  version: string;
  xid?: string;
  dsTransactionId?: string;
}

/** The problems of an external authentication, each as [field, message] (empty when sound). */
export function externalProblems(external: ExternalAuthentication, prefix = 'threeDs.external'): [string, string][] {
  const problems: [string, string][] = [];
  if (!CAVV.test(external.cavv)) problems.push([`${prefix}.cavv`, 'cavv must be the 20-byte authentication value in base64 (28 characters) or hex (40 digits).']);
  if (!ECI.test(external.eci)) problems.push([`${prefix}.eci`, 'eci must be two digits (05, 06, 02, 01...).']);
  if (!VERSION.test(external.version)) problems.push([`${prefix}.version`, 'version must be an EMV 3-D Secure 2 version (2, 2.1.0, 2.2.0).']);
  if (external.dsTransactionId !== undefined && !UUID.test(external.dsTransactionId)) problems.push([`${prefix}.dsTransactionId`, 'dsTransactionId must be the directory server\'s UUID.']);
  return problems;
}

/** The device fields a gateway-run authentication sends the issuer (EMVCo's browser data). */
export const DEVICE_FIELDS = [
  'browserAcceptHeader',
  'browserColorDepth',
  'browserJavaEnabled',
  'browserLanguage',
  'browserScreenHeight',
  'browserScreenWidth',
  'browserTimeZone',
  'browserUserAgent',
  'httpBrowserIp',
] as const;
