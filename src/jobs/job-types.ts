import type { JobsTable } from '../db/schema.js';

// What the queue takes, hands out and reports: the shapes shared by JobQueue, its workers and its readers.

export type JobStatus = JobsTable['status'];

export interface NewJob {
  kind: string;
  payload: unknown;
  /** Business time (clock.now()) at which the job falls due; default now. */
  runAt?: Date;
  /** A second enqueue with the same key is a no-op (e.g. `billing:<subscriptionId>:<n>`). */
  dedupeKey?: string;
  maxAttempts?: number;
}

/** A job taken by a worker: the row as the claim left it, payload parsed. */
export interface ClaimedJob {
  id: number;
  kind: string;
  payload: unknown;
  runAt: Date;
  /** Including the current one. */
  attempts: number;
  maxAttempts: number;
  dedupeKey: string | null;
  lockedBy: string;
  lockedUntil: Date;
}

export interface ClaimOptions {
  limit: number;
  /** Business time up to which pending jobs count as due; default clock.now(). */
  dueBy?: Date;
  /**
   * How long the claim holds the job before another worker may take it (wall clock); default
   * DEFAULT_LEASE_MS. A worker renews it while the job runs (LeaseKeeper), so it can be short.
   */
  leaseMs?: number;
  kinds?: string[];
}

/** Where enqueue finds a kind's default attempt limit (JobHandlers fits). */
export interface MaxAttemptsSource {
  maxAttemptsFor(kind: string): number | undefined;
}

/** A job that failed for good, as the operator's dashboard lists it. */
export interface FailedJob {
  id: number;
  kind: string;
  attempts: number;
  maxAttempts: number;
  lastError: string | null;
  /** Business time of the failure (the row's last update). */
  failedAt: string;
}

export type FailOutcome = 'retry' | 'failed' | 'lost';

/** What the queue reports as it records outcomes (GatewayMetrics fits). */
export interface JobMetrics {
  jobFailed(kind: string, outcome: 'retry' | 'failed'): void;
  /** A running job whose lease ended with no outcome: `retaken` by a claim, or `failed` on its last attempt. */
  leaseExpired(kind: string, outcome: 'retaken' | 'failed'): void;
  /** Running jobs of this instance's previous process released at start (releaseAbandoned). */
  takenOver(jobs: number): void;
}

/** Where the queue reports; both optional, so tests build a bare queue. */
export interface QueueObservers {
  metrics?: JobMetrics;
  /** For the jobs the queue itself ends (a lease that expired on the last attempt); pino fits. */
  logger?: { error(obj: object, msg?: string): void };
}

export const DEFAULT_MAX_ATTEMPTS = 10;
/** The fallback lease; the service passes the configured JOB_LEASE_MS. */
export const DEFAULT_LEASE_MS = 30_000;
