import type { Config } from '../../config.js';
import type { PixService } from './service.js';
import type { LocationSigner } from './location-signer.js';
import type { SandboxClockService } from '../sandbox/clock-service.js';
import type { Authenticator } from '../../http/principal.js';

/** What the Pix routes use: the Pix service, the sandbox PSP's location signer, the guards' authenticator and the base paths. */
export interface PixRouteDeps {
  config: Config;
  pix: PixService;
  pixLocationSigner: LocationSigner;
  /** Sandbox mode only. */
  sandboxClock?: SandboxClockService;
  /** The guards authenticate through it (AuthService). */
  auth: Authenticator;
}
