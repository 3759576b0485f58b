import type { Config } from '../../config.js';
import type { Database } from '../../db/connection.js';
import type { MerchantService } from '../merchants/service.js';
import type { SettlementService } from './service.js';
import type { StreamSlots } from '../../http/stream-slots.js';
import type { Authenticator } from '../../http/principal.js';

/** What the settlement routes use: the settlement service, the merchants, the database (streamed searches), the guards' authenticator and the base paths. */
export interface SettlementRouteDeps {
  config: Config;
  database: Database;
  merchants: MerchantService;
  settlement: SettlementService;
  /** Per-merchant slots of the streamed range searches. */
  streamSlots: StreamSlots;
  /** The guards authenticate through it (AuthService). */
  auth: Authenticator;
}
