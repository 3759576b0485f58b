import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import type { NotificationStatus } from '../../db/schema.js';
import { backoffDelayMs, type BackoffPolicy } from '../../jobs/backoff.js';
import { RetryLater } from '../../jobs/registry.js';
import type { JobLogger } from '../../jobs/run-job.js';
import type { DataCipher } from '../../security/data-cipher.js';
import { checkUrlSyntax } from './address-policy.js';
import type { HttpPoster, PostResult } from './http-post.js';
import type { DeliveryMetrics } from './metrics.js';
import { deliveryBody } from './outbox.js';
import { sign } from './signature.js';
import { deliveryRepository as repo, sealedAad, type NotificationRow, type SubscriptionRow } from './repository.js';

/** Retries start near a minute and double up to three hours apart, within the 72-hour window. */
export const DELIVERY_BACKOFF: BackoffPolicy = { baseMs: 60_000, maxMs: 3 * 60 * 60 * 1000, jitter: 0.2 };

export interface DeliveryDeps {
  database: Database;
  clock: Clock;
  cipher: DataCipher;
  logger: JobLogger;
  poster: HttpPoster;
  metrics: DeliveryMetrics;
  production: boolean;
  random?: () => number;
}

type Subscription = Pick<SubscriptionRow, 'url' | 'basic_auth_sealed' | 'secret_sealed'>;

/** Where and how one attempt goes. */
interface Target {
  url: URL;
  headers: Record<string, string>;
}

/** 2xx delivered, 400 rejected by the receiver (never retried), anything else retried. */
export function outcomeOf(result: PostResult): 'Delivered' | 'Rejected' | 'retry' {
  if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300) return 'Delivered';
  if (result.statusCode === 400) return 'Rejected';
  return 'retry';
}

/**
 * The delivery engine, one for webhooks and urlCallBack: the handler of the `webhook.deliver`
 * job. One attempt per run; a failed attempt is recorded and the job comes back at the next
 * retry time (RetryLater), so the notification row, not the job, holds the attempt count.
 * A worker that dies mid-attempt leaves the job running until its lease ends; the next worker
 * then finds the notification still Pending and sends it again (at least once, never lost).
 */
export class WebhookDelivery {
  constructor(private readonly deps: DeliveryDeps) {}

  async deliver(id: number): Promise<void> {
    const { database, clock } = this.deps;
    // The notification and its account's subscription (as it is now) in one round trip.
    const found = await repo.find(database.db, id);
    if (!found || found.status !== 'Pending') return;
    const { subscription_url, basic_auth_sealed, secret_sealed, ...row } = found;
    const subscription = subscription_url && secret_sealed ? { url: subscription_url, basic_auth_sealed, secret_sealed } : undefined;
    const attemptAt = clock.now();
    // The previous run recorded its attempt but died before the job was rescheduled.
    if (row.next_attempt_at && new Date(row.next_attempt_at).getTime() > attemptAt.getTime()) throw new RetryLater(new Date(row.next_attempt_at));

    // The exact bytes sent are the bytes signed.
    const body = deliveryBody(row);
    const target = this.target(row, subscription, body);
    if ('problem' in target) {
      // Nowhere to send it: no subscription any more, or a callback URL production refuses.
      await this.finish(row, attemptAt, target.problem);
      return;
    }
    const result = await this.deps.poster.post(target.url, body, target.headers);
    const outcome = outcomeOf(result);
    const next = outcome === 'retry' ? this.nextAttempt(row, attemptAt) : null;
    const status: NotificationStatus = outcome === 'retry' ? (next ? 'Pending' : 'Exhausted') : outcome;
    await this.record(row, attemptAt, target.url, result, status, next);
    this.deps.metrics.observe(row.channel, next ? 'retry' : status, result.durationMs);
    this.deps.logger.info(
      // The host only: a URL's path or query may carry the receiver's own tokens.
      { movementId: row.id, channel: row.channel, host: target.url.host, statusCode: result.statusCode, error: result.error, durationMs: result.durationMs, status },
      'webhook attempt',
    );
    if (status === 'Exhausted') {
      // The 72-hour window is over: the merchant must redeliver it. Ids only, never the body.
      this.deps.logger.warn(
        { event: 'webhook.exhausted', notificationId: row.id, channel: row.channel, type: row.type, merchantId: row.merchant_id, accountNumber: Number(row.account_number), attempts: row.attempts + 1, host: target.url.host, statusCode: result.statusCode },
        'webhook delivery exhausted',
      );
    }
    if (next) throw new RetryLater(next, `retry at ${next.toISOString()}`);
  }

  /** The next attempt's time, or null when the 72-hour window is over (the last try is at its end). */
  private nextAttempt(row: NotificationRow, attemptAt: Date): Date | null {
    const deadline = new Date(row.deadline_at).getTime();
    if (attemptAt.getTime() >= deadline) return null;
    const delay = backoffDelayMs(DELIVERY_BACKOFF, row.attempts + 1, this.deps.random);
    return new Date(Math.min(attemptAt.getTime() + delay, deadline));
  }

  /**
   * The URL and headers of this attempt: a webhook goes to the account's subscription as it is
   * now (a replaced URL takes the pending notifications along; a removed one cancels them); a
   * callback to its payment's urlCallBack, signed when the account has a webhook secret.
   */
  private target(row: NotificationRow, subscription: Subscription | undefined, body: string): Target | { problem: string | null } {
    const { cipher } = this.deps;
    let urlText: string;
    if (row.channel === 'webhook') {
      // Removed since: the DELETE canceled what was pending; this one was being retried meanwhile.
      if (!subscription) return { problem: null };
      urlText = subscription.url;
    } else {
      urlText = row.url ?? '';
    }
    // A payment checks only that urlCallBack is an http(s) URL; production's stricter rules
    // (https) are applied here, where the reason can be shown in the delivery log.
    const checked = checkUrlSyntax(urlText, { production: this.deps.production });
    if ('problem' in checked) return { problem: `${row.channel === 'callback' ? 'urlCallBack' : 'url'} ${checked.problem}` };
    const messageId = `msg_${row.id}`;
    // Standard Webhooks verifiers compare this with their own clock: wall time, even in sandbox.
    const timestamp = Math.floor(this.deps.clock.wallNow().getTime() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'webhook-id': messageId,
      'webhook-timestamp': String(timestamp),
    };
    if (subscription) {
      const aad = sealedAad(Number(row.account_number));
      headers['webhook-signature'] = sign(cipher.decrypt(subscription.secret_sealed, aad), messageId, timestamp, body);
      if (row.channel === 'webhook' && subscription.basic_auth_sealed) {
        headers.authorization = `Basic ${cipher.decrypt(subscription.basic_auth_sealed, aad)}`;
      }
    }
    return { url: checked.url, headers };
  }

  /** The attempt and the notification's new state, together; fenced on the attempt count so a stale run changes nothing. */
  private async record(row: NotificationRow, at: Date, url: URL, result: PostResult, status: NotificationStatus, next: Date | null): Promise<void> {
    const { database } = this.deps;
    const attempt = {
      notification_id: row.id,
      attempted_at: at.toISOString(),
      url: url.origin + url.pathname,
      status_code: result.statusCode,
      error: result.error,
      duration_ms: result.durationMs,
    };
    const outcome = { id: row.id, attempts: row.attempts, status, nextAttemptAt: next?.toISOString() ?? null, at: at.toISOString() };
    if (database.dialect === 'postgres') {
      // One statement, one round trip: the insert rides along as a data-modifying CTE.
      await repo.recordAttemptAndOutcome(database.db, attempt, outcome);
      return;
    }
    await database.db.transaction().execute(async (trx) => {
      await repo.insertAttempt(trx, attempt);
      await repo.recordOutcome(trx, outcome);
    });
  }

  /** Ends a notification that cannot be sent: Canceled, with the reason as an attempt that reached no one. */
  private async finish(row: NotificationRow, at: Date, problem: string | null): Promise<void> {
    await this.deps.database.db.transaction().execute(async (trx) => {
      if (problem) await repo.insertAttempt(trx, { notification_id: row.id, attempted_at: at.toISOString(), url: '', status_code: null, error: problem, duration_ms: 0 });
      await repo.cancel(trx, row.id, at.toISOString());
    });
  }
}
