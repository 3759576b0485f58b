import type { Clock } from '../../clock.js';
import type { CardService } from '../cards/service.js';
import type { SandboxClockService } from './clock-service.js';
import type { SandboxResetService } from './reset-service.js';
import type { Authenticator } from '../../http/principal.js';

/** What the sandbox routes use: its clock and reset, the card vault (test cards), the clock and the guards' authenticator. */
export interface SandboxRouteDeps {
  clock: Clock;
  cards: CardService;
  /** Sandbox mode only. */
  sandboxClock?: SandboxClockService;
  /** Sandbox mode only. */
  sandboxReset?: SandboxResetService;
  /** The guards authenticate through it (AuthService). */
  auth: Authenticator;
}
