/**
 * Telling "the database is unreachable or restarting" apart from a bug. The first is answered
 * 503 with `Retry-After` (the caller should try again, nothing was written or the transaction
 * rolled back); the second stays a 500.
 */

/** PostgreSQL SQLSTATE classes and codes that mean the server, not the query, is the problem. */
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: pg_terminate_backend, a restart
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up, or in recovery
  '53300', // too_many_connections
  '53400', // configuration_limit_exceeded
  '57014', // query_canceled: our statement_timeout fired
  '25P03', // idle_in_transaction_session_timeout
  '25006', // read_only_sql_transaction: the host became a standby (a failover); we open no read-only transactions
]);

const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * node-postgres's messages: a connection that died under a statement or never came (refused,
 * no free connection or no connect within DB_CONNECT_TIMEOUT_MS), a client already broken, and
 * its answer timeout (query_timeout).
 */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Query read timeout/,
  /^Client has encountered a connection error/,
  /Client was closed and is not queryable/,
];

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string') {
      // Class 08: connection exceptions.
      if (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_ERRNOS.has(code)) return true;
      // SQLite: another writer held the lock past busy_timeout.
      if (code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED') return true;
    }
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  }
  return false;
}

/** Seconds a caller is told to wait after a 503 for an unavailable database. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;
