import type { Config } from '../../config.js';
import type { Clock } from '../../clock.js';
import type { BankSlipService } from './service.js';
import type { SandboxClockService } from '../sandbox/clock-service.js';
import type { Authenticator } from '../../http/principal.js';

/** What the bank slip routes use: the slip service, the clock, the guards' authenticator and the base paths. */
export interface BankSlipRouteDeps {
  config: Config;
  clock: Clock;
  bankSlips: BankSlipService;
  /** Sandbox mode only. */
  sandboxClock?: SandboxClockService;
  /** The guards authenticate through it (AuthService). */
  auth: Authenticator;
}
