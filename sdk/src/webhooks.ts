/**
 * Webhook signature verification (Standard Webhooks, https://www.standardwebhooks.com): the
 * gateway signs every webhook and payment callback with the account's `whsec_` secret; this
 * checks `webhook-signature` over the raw body, `webhook-id` and `webhook-timestamp` (at most 5
 * minutes off), with the reference `standardwebhooks` library, and answers the parsed body.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

export { WebhookVerificationError };

/** Request headers as Node's http (IncomingMessage.headers) or fetch (Headers) give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * A delivery's body: a webhook notification (`movementId`, `type`, `oldValue`, `newValue`, ...)
 * or a payment callback (`paymentId`, `status`, ...). See the README's webhook section.
 */
export type WebhookNotification = { type?: string; movementId?: number; paymentId?: string; status?: string } & Record<string, unknown>;

const NAMES = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/**
 * Verifies one delivery and answers its body; throws WebhookVerificationError when the
 * signature, id or timestamp do not check out. `body` must be the raw bytes as received,
 * never JSON re-serialized.
 */
export function verifyWebhook(secret: string, headers: WebhookHeaders, body: string | Buffer): WebhookNotification {
  const picked: Record<string, string> = {};
  for (const name of NAMES) {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    picked[name] = Array.isArray(value) ? value.join(' ') : (value ?? '');
  }
  return new Webhook(secret).verify(body, picked) as WebhookNotification;
}
