import type { Clock } from '../../clock.js';
import { readDatabase, type Database } from '../../db/connection.js';
import { addDays } from '../../domain/calendar.js';
import { conflict, invalid, notFound, type ErrorItem } from '../../domain/errors.js';
import { paging, type ListEnvelope } from '../../http/listing.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { JobDefinition } from '../../jobs/registry.js';
import type { DataCipher } from '../../security/data-cipher.js';
import { AddressNotAllowedError, checkUrlSyntax, hostOf, publicAddressesOf, type HostResolver } from './address-policy.js';
import type { WebhookDelivery } from './delivery.js';
import type { HttpPoster } from './http-post.js';
import type { DeliveryMetrics } from './metrics.js';
import { DELIVER_JOB, DELIVER_JOB_MAX_ATTEMPTS, deliverJobKey, deliveryBody, RETRY_WINDOW_MS } from './outbox.js';
import { notificationsRepository, sealedAad, subscriptionsRepository, type AttemptRow, type DeliveryFilter, type NotificationRow } from './repository.js';
import type { DeliveriesQuery, Delivery, SubscriptionBody } from './schemas.js';
import { basicAuthProblem, generateSecret } from './signature.js';
import { typesOf, unknownTypes } from './event-types.js';
import { sandboxDelete, type ResetCounts, type ResetExecutor } from '../../db/sandbox-reset.js';

export interface WebhookServiceDeps {
  database: Database;
  clock: Clock;
  cipher: DataCipher;
  queue: JobQueue;
  delivery: WebhookDelivery;
  poster: HttpPoster;
  metrics: DeliveryMetrics;
  production: boolean;
  resolve: HostResolver;
}

const SORTABLE = { movementId: 'id', createdDate: 'created_at', status: 'status', type: 'type' } as const;

/** Subscription management and the delivery log (contract section 11). */
export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  /** Sandbox reset (src/modules/sandbox/reset-service.ts): this module's business rows, every merchant's or one's. */
  // Subscriptions (URL, secret) are the merchant's configuration and stay; notifications and their attempts go.
  async resetSandboxData(executor: ResetExecutor, merchantId?: string): Promise<ResetCounts> {
    let attempts = executor.deleteFrom('webhook_attempts');
    if (merchantId !== undefined) {
      attempts = attempts.where('notification_id', 'in', executor.selectFrom('webhook_notifications').select('id').where('merchant_id', '=', merchantId));
    }
    const webhook_attempts = Number((await attempts.executeTakeFirst()).numDeletedRows);
    return { webhook_attempts, webhook_notifications: await sandboxDelete(executor, 'webhook_notifications', merchantId) };
  }

  /** The delivery job (src/root/context.ts registers it). */
  jobs(): JobDefinition[] {
    return [
      {
        kind: DELIVER_JOB,
        handler: async ({ id }: { id: number }) => this.deps.delivery.deliver(id),
        maxAttempts: DELIVER_JOB_MAX_ATTEMPTS,
        // Notifications are independent of each other: the sandbox advance sends them side by side too.
        parallel: true,
      },
    ];
  }

  /** Delivery counters and timings, for the app's /metrics. */
  metrics() {
    return this.deps.metrics.all();
  }

  /** Closes the receivers' kept-alive connections (shutdown, after the worker stopped). */
  close(): void {
    this.deps.poster.close();
  }

  /** POST: registers or replaces the account's URL. The signing secret is kept unless rotateSecret. */
  async subscribe(merchantId: string, accountNumber: number, body: SubscriptionBody): Promise<{ url: string; secret: string }> {
    const { database, clock, cipher } = this.deps;
    const url = await this.checkedUrl(body.url, body.basicAuth, body.types);
    const aad = sealedAad(accountNumber);
    const now = clock.now().toISOString();
    return database.db.transaction().execute(async (trx) => {
      const existing = await subscriptionsRepository.find(trx, accountNumber);
      const secret = existing && !body.rotateSecret ? cipher.decrypt(existing.secret_sealed, aad) : generateSecret();
      await subscriptionsRepository.upsert(trx, {
        account_number: accountNumber,
        merchant_id: merchantId,
        url,
        basic_auth_sealed: body.basicAuth ? cipher.encrypt(body.basicAuth, aad) : null,
        secret_sealed: cipher.encrypt(secret, aad),
        // Absent keeps the account's choice (null, the default, for a new subscription).
        event_types: body.types !== undefined ? JSON.stringify([...new Set(body.types)]) : (existing?.event_types ?? null),
        created_at: existing?.created_at ?? now,
        updated_at: now,
      });
      return { url, secret };
    });
  }

  async get(accountNumber: number) {
    const row = await subscriptionsRepository.find(this.deps.database.db, accountNumber);
    if (!row) throw notFound('Webhook subscription');
    return { url: row.url, basicAuth: row.basic_auth_sealed !== null, types: [...typesOf(row.event_types)], createdDate: row.created_at, updatedDate: row.updated_at };
  }

  /** DELETE: notifications stop, pending ones included (they end Canceled). */
  async remove(accountNumber: number): Promise<{ url: string }> {
    const { database, clock } = this.deps;
    return database.db.transaction().execute(async (trx) => {
      const row = await subscriptionsRepository.find(trx, accountNumber);
      if (!row || !(await subscriptionsRepository.remove(trx, accountNumber))) throw notFound('Webhook subscription');
      await notificationsRepository.cancelPendingWebhooks(trx, accountNumber, clock.now().toISOString());
      return { url: row.url };
    });
  }

  async deliveries(accountNumber: number, query: DeliveriesQuery): Promise<ListEnvelope<Delivery>> {
    const page = paging(query, SORTABLE);
    // Only the API's own filters: a stray `type` in its query string must not filter (its schema has none).
    const filter = deliveryFilter({ status: query.status, channel: query.channel, startDate: query.startDate, endDate: query.endDate });
    // The delivery log decides nothing (a redelivery reads the notification again): the replica when one is usable.
    const db = readDatabase(this.deps.database).db;
    const { rows, total } = await notificationsRepository.page(db, accountNumber, filter, { column: page.orderColumn, direction: page.direction }, page.limit, page.offset);
    const attempts = await notificationsRepository.attemptsOf(db, rows.map((r) => Number(r.id)));
    return { items: rows.map((r) => toDelivery(r, attempts.get(Number(r.id)) ?? [])), page: page.page, limit: page.limit, total };
  }

  /**
   * The notifications (webhooks and callbacks) of one card payment, for the dashboard's payment
   * page. Notifications carry no payment column; each is written in the transaction
   * of the change it tells, with the change's time, so they are looked up at the times of the
   * payment's changes (`moments`, each with the second after it: the installments' notifications
   * of a change read the clock again; a short range of webhook_notifications_account_idx each, no
   * scan of the account's log) and kept when their body names the payment (paymentId) or its
   * nsu. An installment received by a later sweep is told at the sweep's time, which no payment
   * event records: those show in the webhooks page's log, not here (except the last, told with Paid).
   */
  async deliveriesOfPayment(accountNumber: number, payment: { paymentId: string; nsu: string | null }, moments: string[]): Promise<Delivery[]> {
    if (moments.length === 0) return [];
    const db = this.deps.database.db;
    const rows = await notificationsRepository.nearMoments(db, accountNumber, [...new Set(moments)], 1000);
    const mine = rows.filter((r) => {
      const body = JSON.parse(r.payload) as { paymentId?: string; nsu?: string; data?: { paymentId?: string; sourceId?: string; nsu?: string } };
      const id = payment.paymentId;
      if (body.paymentId === id || body.data?.paymentId === id || body.data?.sourceId === id) return true;
      return !!payment.nsu && (body.nsu === payment.nsu || body.data?.nsu === payment.nsu);
    });
    const attempts = await notificationsRepository.attemptsOf(db, mine.map((r) => Number(r.id)));
    return mine.map((r) => toDelivery(r, attempts.get(Number(r.id)) ?? []));
  }

  /**
   * The delivery log a screen at a time (dashboard read method): the filters of `deliveries`
   * plus the notification `type`, newest first, keyset-paged instead of OFFSET and COUNT,
   * which an account with millions of notifications cannot afford on every page view.
   */
  async deliveryLog(
    accountNumber: number,
    query: Pick<DeliveriesQuery, 'status' | 'channel' | 'startDate' | 'endDate'> & { type?: string },
    limit: number,
    after?: { createdAt: string; id: number },
  ): Promise<{ items: Delivery[]; next?: { createdAt: string; id: number } }> {
    const db = this.deps.database.db;
    const rows = await notificationsRepository.keysetPage(db, accountNumber, deliveryFilter(query), limit + 1, after);
    const page = rows.slice(0, limit);
    const attempts = await notificationsRepository.attemptsOf(db, page.map((r) => Number(r.id)));
    const last = page[page.length - 1];
    return {
      items: page.map((r) => toDelivery(r, attempts.get(Number(r.id)) ?? [])),
      ...(rows.length > limit && last ? { next: { createdAt: last.created_at, id: Number(last.id) } } : {}),
    };
  }

  /**
   * Sends one notification again, whatever became of it: Pending, due now, with a fresh 72-hour
   * retry window. Its single job is re-armed, never duplicated; while an attempt is in flight
   * the request is refused (409) rather than sending twice at once.
   */
  async redeliver(accountNumber: number, movementId: number): Promise<Delivery> {
    const { database, clock, queue } = this.deps;
    const now = clock.now();
    const at = now.toISOString();
    return database.db.transaction().execute(async (trx) => {
      const row = await notificationsRepository.find(trx, accountNumber, movementId);
      if (!row) throw notFound('Notification');
      if (row.channel === 'webhook' && !(await subscriptionsRepository.find(trx, accountNumber))) {
        throw conflict('No webhook URL is registered for this account; register one before redelivering.');
      }
      const armed = await queue.rearm(trx, { kind: DELIVER_JOB, payload: { id: Number(row.id) }, runAt: now, dedupeKey: deliverJobKey(Number(row.id)), maxAttempts: DELIVER_JOB_MAX_ATTEMPTS });
      if (armed === 'running') throw conflict('An attempt to deliver this notification is in progress; try again in a moment.');
      const deadline = new Date(now.getTime() + RETRY_WINDOW_MS).toISOString();
      await notificationsRepository.reopen(trx, Number(row.id), at, deadline);
      const attempts = await notificationsRepository.attemptsOf(trx, [Number(row.id)]);
      return toDelivery({ ...row, status: 'Pending', next_attempt_at: at, deadline_at: deadline }, attempts.get(Number(row.id)) ?? []);
    });
  }

  /** The URL rules of section 11, with the production address check, and the type names; all problems at once. */
  private async checkedUrl(text: string, basicAuth: string | undefined, types: string[] | undefined): Promise<string> {
    const errors: ErrorItem[] = [];
    const checked = checkUrlSyntax(text, { production: this.deps.production });
    if ('problem' in checked) {
      errors.push({ tag: 'url', description: `url ${checked.problem}.` });
    } else if (this.deps.production) {
      try {
        await publicAddressesOf(hostOf(checked.url), this.deps.resolve);
      } catch (error) {
        if (!(error instanceof AddressNotAllowedError)) throw error;
        errors.push({ tag: 'url', description: `url must lead to a public address: ${error.message}.` });
      }
    }
    const authProblem = basicAuth ? basicAuthProblem(basicAuth) : null;
    if (authProblem) errors.push({ tag: 'basicAuth', description: `basicAuth ${authProblem}.` });
    const unknown = unknownTypes(types ?? []);
    if (unknown.length > 0) errors.push({ tag: 'types', description: `types names no event type: ${unknown.join(', ')} (see docs/events.md).` });
    if (types !== undefined && types.length === 0) errors.push({ tag: 'types', description: 'types must name at least one event type; remove the subscription to receive none.' });
    if (errors.length > 0) throw invalid(errors);
    return text;
  }
}

/** The log's filters as the repository reads them; a reversed date range is a 400. */
function deliveryFilter(query: Pick<DeliveriesQuery, 'status' | 'channel' | 'startDate' | 'endDate'> & { type?: string }): DeliveryFilter {
  if (query.startDate && query.endDate && query.startDate > query.endDate) {
    throw invalid('query.startDate', 'startDate must not be after endDate.');
  }
  return {
    status: query.status,
    channel: query.channel,
    type: query.type,
    from: query.startDate ? `${query.startDate}T00:00:00.000Z` : undefined,
    to: query.endDate ? `${addDays(query.endDate, 1)}T00:00:00.000Z` : undefined,
  };
}

function toDelivery(row: NotificationRow, attempts: AttemptRow[]): Delivery {
  return {
    movementId: Number(row.id),
    channel: row.channel,
    type: row.type,
    status: row.status,
    createdDate: row.created_at,
    nextAttemptAt: row.status === 'Pending' ? row.next_attempt_at : null,
    notification: JSON.parse(deliveryBody(row)) as Record<string, unknown>,
    attempts: attempts.map((a) => ({ at: a.attempted_at, url: a.url, statusCode: a.status_code, error: a.error, durationMs: a.duration_ms })),
  };
}
