import type { Authenticator } from '../http/principal.js';
import type { AcquirerConnections } from './connections.js';

/** What the acquirer connection routes ask of the merchants (MerchantService satisfies it). */
export interface KnownMerchants {
  /** Throws 404 when the merchant does not exist. */
  get(merchantId: string): Promise<unknown>;
}

/** What the operator's acquirer connection routes use. */
export interface AcquirerRouteDeps {
  acquirerConnections: AcquirerConnections;
  merchants: KnownMerchants;
  /** The guards authenticate through it (AuthService). */
  auth: Authenticator;
}
