import type { Config } from '../../config.js';
import type { PaymentService } from './service.js';
import type { Authenticator } from '../../http/principal.js';

/** What the payment routes use: the payment service, the guards' authenticator and the base paths. */
export interface PaymentRouteDeps {
  config: Config;
  payments: PaymentService;
  /** The guards authenticate through it (AuthService). */
  auth: Authenticator;
}
