/**
 * How long the gateway waits on its database, so that a database that silently drops traffic
 * makes requests fail fast (503) instead of hanging, and a restart is waited out at start.
 */
export interface DatabaseSettings {
  /** A new connection must be made within this (DB_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs: number;
  /** The server cancels a statement running longer (DB_STATEMENT_TIMEOUT_MS, PostgreSQL's statement_timeout). */
  statementTimeoutMs: number;
  /** The client gives up on an answer this long after asking (the statement timeout plus a margin): a dead network, not a slow query. */
  queryTimeoutMs: number;
  /** The server ends a session idle inside a transaction this long (DB_IDLE_IN_TRANSACTION_TIMEOUT_MS). */
  idleInTransactionTimeoutMs: number;
  /** At start, how long to keep retrying a database that does not answer yet (DB_START_TIMEOUT_MS). */
  startTimeoutMs: number;
  /**
   * PostgreSQL connections one instance may hold (DB_POOL_SIZE). Instances x this must stay under
   * the server's max_connections; more connections than the server has cores mostly queue there.
   */
  poolSize: number;
  /**
   * DATABASE_READ_URL: a replica whose replay is further behind than this is not read from; its
   * reads go to the primary until it catches up (DB_READ_MAX_LAG_SECONDS).
   */
  readMaxLagSeconds: number;
}

type Integer = (value: string | undefined, fallback: number, name: string, min: number, max: number) => number;

export function loadDatabaseSettings(env: Record<string, string | undefined>, integer: Integer): DatabaseSettings {
  const statementTimeoutMs = integer(env.DB_STATEMENT_TIMEOUT_MS, 30_000, 'DB_STATEMENT_TIMEOUT_MS', 100, 3_600_000);
  return {
    connectTimeoutMs: integer(env.DB_CONNECT_TIMEOUT_MS, 5_000, 'DB_CONNECT_TIMEOUT_MS', 100, 120_000),
    statementTimeoutMs,
    queryTimeoutMs: statementTimeoutMs + 5_000,
    idleInTransactionTimeoutMs: integer(env.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS, 60_000, 'DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', 1_000, 3_600_000),
    startTimeoutMs: integer(env.DB_START_TIMEOUT_MS, 60_000, 'DB_START_TIMEOUT_MS', 0, 3_600_000),
    poolSize: integer(env.DB_POOL_SIZE, 20, 'DB_POOL_SIZE', 1, 1_000),
    readMaxLagSeconds: integer(env.DB_READ_MAX_LAG_SECONDS, 10, 'DB_READ_MAX_LAG_SECONDS', 0, 86_400),
  };
}

export const DEFAULT_DATABASE_SETTINGS: DatabaseSettings = loadDatabaseSettings({}, (_v, fallback) => fallback);
