import type { Config } from '../../config.js';
import type { CardKeyService } from './keys.js';
import type { CardService } from './service.js';
import type { Authenticator } from '../../http/principal.js';

/** What the card routes use: the card vault, its public key, the guards' authenticator and the base paths. */
export interface CardRouteDeps {
  config: Config;
  cardKeys: CardKeyService;
  cards: CardService;
  /** The guards authenticate through it (AuthService). */
  auth: Authenticator;
}
