import type { Config } from '../../config.js';
import type { PaymentLinkService } from './service.js';
import type { Authenticator } from '../../http/principal.js';

/** What the payment link routes use: the link service, the guards' authenticator and the base paths. */
export interface PaymentLinkRouteDeps {
  config: Config;
  paymentLinks: PaymentLinkService;
  /** The guards authenticate through it (AuthService). */
  auth: Authenticator;
}
