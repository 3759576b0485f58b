import { Counter, Gauge, type Metric } from 'prom-client';
import type { Clock } from '../clock.js';
import type { Database } from '../db/connection.js';
import { errorMessage } from '../jobs/queue.js';

/** pino fits. */
export interface ScrapeLogger {
  warn(obj: object, msg?: string): void;
}

/** One group of unfinished jobs. Times are business time (ISO text, as stored). */
export interface QueueGroup {
  kind: string;
  status: 'pending' | 'running';
  jobs: number;
  /** Earliest run_at of the group. */
  firstRunAt: string | null;
  /** Earliest created_at of the group. */
  firstCreatedAt: string | null;
}

/** A scrape must not hang on a database that does not answer: its job series are left out instead. */
const READ_TIMEOUT_MS = 2_000;
export const DEFAULT_SCRAPE_CACHE_MS = 5_000;

/**
 * Reads the unfinished jobs, grouped by kind and status, in one statement, and keeps the answer
 * for `cacheMs`: two Prometheus servers (or a scrape and a curl) within that time cost one read,
 * and concurrent scrapes share the read in flight.
 *
 * Cost: `status in ('pending', 'running')` is a range of the (status, run_at, id) index, so done
 * and failed jobs (the bulk of the table) are never visited; the rows it visits are the backlog
 * itself (`kind` and `created_at` come from the table). Measured in docs/operations.md.
 */
export class QueueReader {
  private readonly reading: CachedRead<QueueGroup[]>;

  constructor(
    private readonly database: Database,
    cacheMs = DEFAULT_SCRAPE_CACHE_MS,
    logger?: ScrapeLogger,
  ) {
    this.reading = new CachedRead(() => this.query(), cacheMs, logger, 'metrics: the job table could not be read; job series left out of this scrape');
  }

  /** The groups, or null when the database did not answer (in time). */
  read(): Promise<QueueGroup[] | null> {
    return this.reading.read();
  }

  private async query(): Promise<QueueGroup[]> {
    const rows = await this.database.db
      .selectFrom('jobs')
      .select((eb) => ['kind', 'status', eb.fn.countAll().as('jobs'), eb.fn.min('run_at').as('first_run_at'), eb.fn.min('created_at').as('first_created_at')])
      .where('status', 'in', ['pending', 'running'])
      .groupBy(['kind', 'status'])
      .execute();
    return rows.map((row) => ({
      kind: row.kind,
      status: row.status as QueueGroup['status'],
      jobs: Number(row.jobs),
      firstRunAt: row.first_run_at ?? null,
      firstCreatedAt: row.first_created_at ?? null,
    }));
  }
}

/**
 * One reading kept for `cacheMs` and shared by the scrapes within it (and the read in flight);
 * null, with one warning, when the database did not answer in time.
 */
class CachedRead<T> {
  private cached: { at: number; value: Promise<T | null> } | undefined;

  constructor(
    private readonly load: () => Promise<T>,
    private readonly cacheMs: number,
    private readonly logger: ScrapeLogger | undefined,
    private readonly failure: string,
  ) {}

  read(): Promise<T | null> {
    const now = performance.now();
    if (this.cached && now - this.cached.at < this.cacheMs) return this.cached.value;
    const value = withTimeout(this.load(), READ_TIMEOUT_MS).catch((error: unknown) => {
      this.logger?.warn({ error: errorMessage(error) }, this.failure);
      return null;
    });
    this.cached = { at: now, value };
    return value;
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  work.catch(() => {});
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Seconds from an ISO instant to `now` (0 for none or a future one): the lateness and age gauges, and the dashboard's job page. */
export const secondsSince = (now: number, iso: string | null): number => (iso === null ? 0 : Math.max(0, (now - Date.parse(iso)) / 1000));

/** What the payment path has left to its background passes. */
export interface PaymentBacklog {
  /** Business time the oldest payment still Pending was made, or null. */
  oldestPendingAt: string | null;
  /** Payment events the relay has not made effective yet. */
  unrelayed: number;
}

export interface ScrapedDeps {
  database: Database;
  clock: Clock;
  kinds: () => string[];
  /** The job kind of webhook deliveries (the webhooks module's): its pending and running jobs are the webhook backlog. */
  webhookDeliveryKind: string;
  logger?: ScrapeLogger;
  cacheMs?: number;
  /** The reading to share (GatewayMetrics shares it with the operator's dashboard); default a new one. */
  reader?: QueueReader;
  paymentBacklog?: () => Promise<PaymentBacklog>;
}

/**
 * Gauges computed when Prometheus scrapes (each resets and refills itself in one synchronous
 * step after the read, so concurrent scrapes never see a half-filled gauge): the job queue (depth, lateness and age by kind), the
 * webhook backlog (its delivery jobs) and the database pool. Every registered kind appears,
 * at 0 when it has nothing waiting.
 *
 * Lateness and age are measured on the business clock, the one jobs are scheduled and claimed
 * by: in production it is the wall clock; in the sandbox a clock advance runs every job due,
 * so lateness there is what the worker has not caught up with yet.
 */
export function scrapedMetrics(deps: ScrapedDeps): Metric[] {
  const reader = deps.reader ?? new QueueReader(deps.database, deps.cacheMs, deps.logger);
  const groups = async (): Promise<QueueGroup[] | null> => reader.read();

  const depth: Gauge<'kind' | 'status'> = new Gauge({
    name: 'gateway_jobs_queue_depth',
    help: 'Unfinished jobs by kind and status (pending: waiting for their run_at or a worker; running: claimed)',
    labelNames: ['kind', 'status'],
    registers: [],
    async collect() {
      const read = await groups();
      depth.reset();
      if (!read) return;
      for (const kind of deps.kinds()) for (const status of ['pending', 'running']) depth.set({ kind, status }, 0);
      for (const g of read) depth.set({ kind: g.kind, status: g.status }, g.jobs);
    },
  });

  const lateness: Gauge<'kind'> = new Gauge({
    name: 'gateway_jobs_oldest_due_seconds',
    help: 'How late the oldest due pending job of each kind is: now minus its run_at (business clock; the wall clock in production), 0 when none is due',
    labelNames: ['kind'],
    registers: [],
    async collect() {
      const read = await groups();
      lateness.reset();
      if (!read) return;
      const now = deps.clock.now().getTime();
      for (const kind of deps.kinds()) lateness.set({ kind }, 0);
      // The earliest run_at of the pending group is the oldest due job when it has passed.
      for (const g of read) if (g.status === 'pending') lateness.set({ kind: g.kind }, secondsSince(now, g.firstRunAt));
    },
  });

  const age: Gauge<'kind'> = new Gauge({
    name: 'gateway_jobs_oldest_age_seconds',
    help: 'Age of the oldest unfinished (pending or running) job of each kind',
    labelNames: ['kind'],
    registers: [],
    async collect() {
      const read = await groups();
      age.reset();
      if (!read) return;
      const now = deps.clock.now().getTime();
      const oldest = new Map<string, number>(deps.kinds().map((kind) => [kind, 0]));
      for (const g of read) oldest.set(g.kind, Math.max(oldest.get(g.kind) ?? 0, secondsSince(now, g.firstCreatedAt)));
      for (const [kind, seconds] of oldest) age.set({ kind }, seconds);
    },
  });

  const backlog: Gauge = new Gauge({
    name: 'gateway_webhook_backlog',
    help: 'Webhook and callback notifications not yet delivered, rejected or given up: their webhook.deliver jobs, pending or running',
    registers: [],
    async collect() {
      const read = await groups();
      backlog.reset();
      if (!read) return;
      backlog.set(read.filter((g) => g.kind === deps.webhookDeliveryKind).reduce((sum, g) => sum + g.jobs, 0));
    },
  });

  const pool: Gauge<'state'> = new Gauge({
    name: 'gateway_db_pool_connections',
    help: 'Database connections: PostgreSQL total (open), idle, busy (held by a query or transaction), waiting (queries queued for a connection) and max (DB_POOL_SIZE). SQLite has one connection and no pool: total 1',
    labelNames: ['state'],
    registers: [],
    collect() {
      pool.reset();
      const stats = deps.database.poolStats?.();
      if (!stats) {
        pool.set({ state: 'total' }, 1);
        return;
      }
      pool.set({ state: 'total' }, stats.total);
      pool.set({ state: 'idle' }, stats.idle);
      pool.set({ state: 'busy' }, stats.busy);
      pool.set({ state: 'waiting' }, stats.waiting);
      pool.set({ state: 'max' }, stats.max);
    },
  });

  // A counter read from the pool's own count at scrape time: its rate is the reconnect rate.
  let closedSeen = 0;
  const closed = new Counter({
    name: 'gateway_db_connections_closed_total',
    help: 'PostgreSQL connections closed (a restart, a failover, a broken network, an idle or aged connection); each is reopened on the next use',
    registers: [],
    collect() {
      const now = deps.database.poolStats?.().closed;
      if (now === undefined) return;
      if (now > closedSeen) closed.inc(now - closedSeen);
      closedSeen = now;
    },
  });

  const replicaLag: Gauge = new Gauge({
    name: 'gateway_db_replica_lag_seconds',
    help: 'DATABASE_READ_URL: seconds the replica replays behind its primary (absent while it does not answer)',
    registers: [],
    collect() {
      replicaLag.reset();
      const lag = deps.database.replica?.state().lagSeconds;
      if (lag !== undefined && lag !== null) replicaLag.set(lag);
    },
  });
  const replicaInUse: Gauge = new Gauge({
    name: 'gateway_db_replica_in_use',
    help: 'DATABASE_READ_URL: 1 while the replica answers within DB_READ_MAX_LAG_SECONDS and takes the replica-safe reads, 0 while the primary does',
    registers: [],
    collect() {
      replicaInUse.reset();
      const state = deps.database.replica?.state();
      if (state) replicaInUse.set(state.inUse ? 1 : 0);
    },
  });
  const routedSeen = { replica: 0, primary: 0 };
  const routed = new Counter({
    name: 'gateway_db_replica_safe_reads_total',
    help: 'DATABASE_READ_URL: replica-safe reads (conciliation searches, bank slip listings) by the database that answered them',
    labelNames: ['target'],
    registers: [],
    collect() {
      const now = deps.database.replica?.state().routed;
      if (!now) return;
      for (const target of ['replica', 'primary'] as const) {
        if (now[target] > routedSeen[target]) routed.inc({ target }, now[target] - routedSeen[target]);
        routedSeen[target] = now[target];
      }
    },
  });

  return [depth, lateness, age, backlog, pool, closed, replicaLag, replicaInUse, routed, ...paymentGauges(deps)];
}

/** The payment path's background work: the oldest payment still Pending (a lost answer the recovery pass has not settled) and the relay's backlog. */
function paymentGauges(deps: ScrapedDeps): Metric[] {
  const read = deps.paymentBacklog;
  if (!read) return [];
  const cached = new CachedRead(read, deps.cacheMs ?? DEFAULT_SCRAPE_CACHE_MS, deps.logger, 'metrics: the payment backlog could not be read; its series left out of this scrape');
  const reading = () => cached.read();
  const pending: Gauge = new Gauge({
    name: 'gateway_payments_pending_oldest_seconds',
    help: 'Age of the oldest payment still Pending (business clock): a payment answered in time leaves Pending within its acquirer call; one whose answer was lost waits for the recovery pass',
    registers: [],
    async collect() {
      const backlog = await reading();
      pending.reset();
      if (backlog) pending.set(secondsSince(deps.clock.now().getTime(), backlog.oldestPendingAt));
    },
  });
  const relay: Gauge = new Gauge({
    name: 'gateway_payment_relay_backlog',
    help: 'Payment events whose notifications and receivables the relay has not made yet (normally relayed within a second)',
    registers: [],
    async collect() {
      const backlog = await reading();
      relay.reset();
      if (backlog) relay.set(backlog.unrelayed);
    },
  });
  return [pending, relay];
}
