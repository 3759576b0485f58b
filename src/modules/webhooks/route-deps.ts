import type { Config } from '../../config.js';
import type { WebhookService } from './service.js';
import type { Authenticator } from '../../http/principal.js';

/** What the webhook routes use: the webhook service, the guards' authenticator and the base paths. */
export interface WebhookRouteDeps {
  config: Config;
  webhooks: WebhookService;
  /** The guards authenticate through it (AuthService). */
  auth: Authenticator;
}
