import type { MerchantService } from './service.js';
import type { Authenticator } from '../../http/principal.js';

/** What the admin routes of merchants use: the merchant service and the guards' authenticator. */
export interface MerchantRouteDeps {
  merchants: MerchantService;
  /** The guards authenticate through it (AuthService). */
  auth: Authenticator;
}
