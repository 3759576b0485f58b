import type { Config } from '../../config.js';
import type { MerchantService } from '../merchants/service.js';
import type { AuthService } from './service.js';

/** What the authentication routes use: the auth service (login and guards) and the base paths. */
export interface AuthRouteDeps {
  config: Config;
  merchants: MerchantService;
  auth: AuthService;
}
