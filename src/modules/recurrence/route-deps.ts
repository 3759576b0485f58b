import type { Config } from '../../config.js';
import type { RecurrenceService } from './service.js';
import type { Authenticator } from '../../http/principal.js';

/** What the recurrence routes use: the recurrence service, the guards' authenticator and the base paths. */
export interface RecurrenceRouteDeps {
  config: Config;
  recurrence: RecurrenceService;
  /** The guards authenticate through it (AuthService). */
  auth: Authenticator;
}
