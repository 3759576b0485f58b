import type { Config } from '../../config.js';
import type { DisputeService } from './service.js';
import type { SandboxClockService } from '../sandbox/clock-service.js';
import type { Authenticator } from '../../http/principal.js';

/** What the dispute routes use: the dispute service, the guards' authenticator and the base paths. */
export interface DisputeRouteDeps {
  config: Config;
  disputes: DisputeService;
  /** Sandbox mode only. */
  sandboxClock?: SandboxClockService;
  /** The guards authenticate through it (AuthService). */
  auth: Authenticator;
}
