import type { MerchantService } from '../merchants/service.js';
import type { AntiFraudEngine } from './engine.js';
import type { ConfiguredIpCountries } from './ip-countries.js';
import type { Authenticator } from '../../http/principal.js';

/** What the anti-fraud routes use: the engine, the IP country table, the merchants and the guards' authenticator. */
export interface AntifraudRouteDeps {
  merchants: MerchantService;
  antifraud: AntiFraudEngine;
  ipCountries: ConfiguredIpCountries;
  /** The guards authenticate through it (AuthService). */
  auth: Authenticator;
}
