import { Counter, Histogram, type Metric } from 'prom-client';
import type { AcquirerCall, AcquirerMetrics } from '../acquirer/router.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/connection.js';
import type { JobMetrics } from '../jobs/queue.js';
import type { StatementCounter } from './statements.js';
import { QueueReader, scrapedMetrics, type PaymentBacklog, type QueueGroup, type ScrapeLogger } from './backlog.js';

export interface GatewayMetricsDeps {
  database: Database;
  clock: Clock;
  /** The registered job kinds: each gets its queue series (0 when idle), so an alert never sees a series vanish. */
  kinds: () => string[];
  /** The job kind of webhook deliveries: the webhook backlog gauge counts its jobs. */
  webhookDeliveryKind: string;
  /** What the payment path has left to its background passes (PaymentService.backlog). */
  paymentBacklog?: () => Promise<PaymentBacklog>;
  logger?: ScrapeLogger;
  /** How long one reading of the job table serves scrapes (default 5 s). */
  cacheMs?: number;
  /** The statements the database handle sends (its Kysely `log`), when it was opened with one. */
  statements?: StatementCounter;
}

/**
 * The business series an operator alerts on (docs/operations.md, "Metrics"). Counters are
 * bumped where the event is recorded; the queue, backlog and pool gauges are read when
 * Prometheus scrapes (see backlog.ts). Created unregistered: each app's /metrics registry adopts
 * them (tests build many apps in one process).
 */
export class GatewayMetrics implements AcquirerMetrics, JobMetrics {
  /** Once per payment, by whichever writer moved it out of Pending (or wrote it Denied 59 by anti-fraud). */
  readonly payments = new Counter({
    name: 'gateway_payments_total',
    help: 'Card payment outcomes by status (Authorized, Blocked, Denied) and returnCode, counted once per payment when recorded',
    labelNames: ['status', 'return_code'],
    registers: [],
  });
  readonly acquirerDuration = new Histogram({
    name: 'gateway_acquirer_request_duration_seconds',
    help: 'Acquirer calls by connector, operation and outcome (a call that threw counts as unreachable, no_answer or error)',
    labelNames: ['acquirer', 'operation', 'outcome'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [],
  });
  readonly acquirerFailures = new Counter({
    name: 'gateway_acquirer_failures_total',
    help: 'Acquirer calls that failed: unreachable (never sent), no_answer (sent, outcome unknown), refused (answered that it could not process it, 96), error; declines are not failures',
    labelNames: ['acquirer', 'operation', 'kind'],
    registers: [],
  });
  readonly jobFailures = new Counter({
    name: 'gateway_job_failures_total',
    help: 'Failed job attempts by kind and outcome (retry: it runs again with backoff; failed: no attempts left)',
    labelNames: ['kind', 'outcome'],
    registers: [],
  });
  readonly leaseExpiries = new Counter({
    name: 'gateway_job_lease_expiries_total',
    help: 'Running jobs whose lease ended with no outcome recorded (their worker died or stalled): retaken by a claim, or failed on their last attempt',
    labelNames: ['kind', 'outcome'],
    registers: [],
  });
  readonly takeovers = new Counter({
    name: 'gateway_job_takeovers_total',
    help: "Running jobs of this instance's previous process released at start (INSTANCE_ID takeover); the claim that retakes each also counts a lease expiry",
    registers: [],
  });
  private readonly scraped: Metric[];

  private readonly queueReader: QueueReader;

  constructor(deps: GatewayMetricsDeps) {
    this.queueReader = new QueueReader(deps.database, deps.cacheMs, deps.logger);
    this.scraped = [...scrapedMetrics({ ...deps, reader: this.queueReader }), ...statementMetrics(deps.statements)];
  }

  /**
   * The operator dashboard's job health: the unfinished jobs by kind and status as the
   * queue gauges read them (the same statement and the same few seconds' cache, so the page
   * costs no more than a scrape); null when the database did not answer in time.
   */
  queueGroups(): Promise<QueueGroup[] | null> {
    return this.queueReader.read();
  }

  /** gateway_job_failures_total by kind: failed attempts of this process since it started, retried or final. */
  async jobFailureCounts(): Promise<Record<string, { retry: number; failed: number }>> {
    const out: Record<string, { retry: number; failed: number }> = {};
    for (const v of (await this.jobFailures.get()).values) {
      const kind = String(v.labels.kind);
      out[kind] ??= { retry: 0, failed: 0 };
      if (v.labels.outcome === 'retry' || v.labels.outcome === 'failed') out[kind][v.labels.outcome] += v.value;
    }
    return out;
  }

  paymentRecorded(status: string, returnCode: string | null): void {
    this.payments.inc({ status, return_code: returnCode ?? '' });
  }

  acquirerCall(call: AcquirerCall): void {
    this.acquirerDuration.observe({ acquirer: call.acquirer, operation: call.operation, outcome: call.outcome }, call.seconds);
    if (call.failure) this.acquirerFailures.inc({ acquirer: call.acquirer, operation: call.operation, kind: call.failure });
  }

  jobFailed(kind: string, outcome: 'retry' | 'failed'): void {
    this.jobFailures.inc({ kind, outcome });
  }

  leaseExpired(kind: string, outcome: 'retaken' | 'failed'): void {
    this.leaseExpiries.inc({ kind, outcome });
  }

  takenOver(jobs: number): void {
    this.takeovers.inc(jobs);
  }

  all(): Metric[] {
    return [this.payments, this.acquirerDuration, this.acquirerFailures, this.jobFailures, this.leaseExpiries, this.takeovers, ...this.scraped];
  }
}

/** gateway_db_statements_total, read from the counter at scrape time. */
function statementMetrics(statements: StatementCounter | undefined): Metric[] {
  if (!statements) return [];
  const seen = new Map<string, number>();
  const counter: Counter<'verb'> = new Counter({
    name: 'gateway_db_statements_total',
    help: 'Statements sent to the database by this process, by first word (select, insert, update, delete, with, begin, commit, rollback, other); PostgreSQL sends BEGIN and COMMIT as statements',
    labelNames: ['verb'],
    registers: [],
    collect() {
      for (const [verb, count] of statements.counts) {
        const before = seen.get(verb) ?? 0;
        if (count > before) counter.inc({ verb }, count - before);
        else if (before === 0) counter.inc({ verb }, 0);
        seen.set(verb, count);
      }
    },
  });
  return [counter];
}
