import pg from 'pg';
import type { DatabaseSettings } from './timeouts.js';

/**
 * PostgreSQL through node-postgres's pool, which Kysely's stock `PostgresDialect` drives
 * (docs/architecture.md, "The database layer"). DATABASE_URL names one endpoint; high
 * availability is the platform's (HAProxy, a virtual address, a managed endpoint): a connection
 * lost in a switch fails its statement (503), the pool drops it and opens a new one on the next use.
 */
export interface PostgresPoolStats {
  /** Connections open, busy or idle. */
  total: number;
  idle: number;
  /** Connections held by a query or a transaction. */
  busy: number;
  /** Queries queued for a free connection. */
  waiting: number;
  /** The most connections this pool opens (DB_POOL_SIZE). */
  max: number;
  /** Connections closed since start (a restart, a failover, an idle or a broken connection). */
  closed: number;
}

// int8 (counts, money in minor units) as JS numbers: every value we store is far below 2^53.
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === pg.types.builtins.INT8 ? Number : pg.types.getTypeParser(oid, format))) as pg.CustomTypesConfig['getTypeParser'],
};

export function openPostgresPool(url: string, settings: DatabaseSettings, options: { max: number; schema?: string; onConnectionError?: (error: Error) => void }) {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max,
    idleTimeoutMillis: 30_000,
    application_name: 'payment-gateway',
    types,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    // No connection, answer or idle transaction waits longer than these: a database that drops
    // traffic makes requests fail fast (503) instead of hanging. The server enforces the
    // statement and idle-transaction limits; query_timeout is the client's, for an answer that
    // never comes (a dead network), so it is the statement timeout plus a margin.
    connectionTimeoutMillis: settings.connectTimeoutMs,
    query_timeout: settings.queryTimeoutMs,
    statement_timeout: settings.statementTimeoutMs,
    idle_in_transaction_session_timeout: settings.idleInTransactionTimeoutMs,
    // TCP keep-alive probes find a peer that vanished without closing (a host powered off).
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  let closed = 0;
  // An idle client whose connection dies (a terminated backend, a failover) is reported here and
  // dropped by the pool; unhandled, the event would end the process.
  pool.on('error', (error) => options.onConnectionError?.(error));
  // A client in use reports the same event to itself: its statement fails (answered 503) and the
  // pool drops it when it is released, so there is nothing more to do than not crash.
  pool.on('connect', (client) => client.on('error', () => {}));
  pool.on('remove', () => closed++);
  const stats = (): PostgresPoolStats => ({
    total: pool.totalCount,
    idle: pool.idleCount,
    busy: pool.totalCount - pool.idleCount,
    waiting: pool.waitingCount,
    max: options.max,
    closed,
  });
  return { pool, stats };
}
