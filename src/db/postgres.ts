import postgres from 'postgres';
import { PostgresJSDialect } from 'kysely-postgres-js';
import { Holders, type HeldConnection } from './held.js';
import type { DatabaseSettings } from './settings.js';

export type { HeldConnection } from './held.js';

/**
 * PostgreSQL through postgres.js (docs/architecture.md, "The database layer"): it reads the libpq
 * multi-host form `postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write` and, on
 * every new connection, tries the hosts in turn until one matches, so after a failover the pool
 * finds the new primary by itself. Kysely talks to it through `kysely-postgres-js`, wrapped here
 * for what postgres.js does not do: a bounded wait for a free connection, counts for /metrics,
 * and the held connections of held.ts (answer timeout, closed connections set aside).
 */
export type PostgresClient = postgres.Sql<{ bigint: number }>;

export interface PostgresPoolStats {
  /** Connections held by a query or a transaction. */
  busy: number;
  /** Queries queued for a free connection. */
  waiting: number;
  /** The most connections this pool opens (DB_POOL_SIZE). */
  max: number;
  /** Connections closed since start (a restart, a failover, an idle or a broken connection); each is reopened on the next use. */
  closed: number;
}

export interface PostgresPool {
  client: PostgresClient;
  dialect: PostgresJSDialect;
  /** A connection with the pool's timeouts and counts (what Kysely gets too). */
  reserve(): Promise<HeldConnection>;
  stats(): PostgresPoolStats;
  end(): Promise<void>;
}

/** The error a query gets when no connection came within the connect timeout (pool full, or no host answered). */
export function connectTimeout(ms: number): Error {
  return Object.assign(new Error(`timeout exceeded when trying to connect (${ms} ms)`), { code: 'CONNECT_TIMEOUT' });
}

/**
 * libpq's target_session_attrs in postgres.js's terms. `any` is its default (no attribute asked)
 * and it refuses the word itself. `read-write`: postgres.js 3.4 checks only
 * default_transaction_read_only, which a hot standby of PostgreSQL 14 or later reports as `off`
 * (it reports in_hot_standby instead), so it would settle on the standby; `primary` checks
 * in_hot_standby, which is what a failover changes. A primary set read-only by hand is still
 * connected to, and its refusals (25006) are answered 503 like a standby's.
 */
export function postgresJsUrl(url: string): string {
  return url
    .replace(/([?&])target_session_attrs=any(&|$)/, (_, lead: string, tail: string) => (tail ? lead : ''))
    .replace(/\?$/, '')
    .replace(/([?&])target_session_attrs=read-write(&|$)/, '$1target_session_attrs=primary$2');
}

/** postgres.js retries a host that refused after a backoff growing to 20 s; a failover wants the next try within a second. */
const reconnectDelaySeconds = (retries: number) => Math.min(0.05 * 2 ** Math.min(retries, 5), 1);

export function openPostgresPool(url: string, settings: DatabaseSettings, options: { max: number; schema?: string; onConnectionError?: (error: Error) => void }): PostgresPool {
  let closed = 0;
  let busy = 0;
  let waiting = 0;
  const holders = new Holders();
  const client = postgres(postgresJsUrl(url), {
    max: options.max,
    connect_timeout: settings.connectTimeoutMs / 1000,
    idle_timeout: 30,
    // TCP keep-alive probes find a peer that vanished without closing (a host powered off).
    keep_alive: 10,
    backoff: reconnectDelaySeconds,
    // The server enforces these on each session: no statement and no idle transaction waits longer.
    connection: {
      application_name: 'payment-gateway',
      statement_timeout: settings.statementTimeoutMs,
      idle_in_transaction_session_timeout: settings.idleInTransactionTimeoutMs,
      ...(options.schema ? { search_path: options.schema } : {}),
    },
    // int8 (counts, money in minor units) as JS numbers: every value we store is far below 2^53.
    types: { bigint: { to: 20, from: [20], parse: (value: string) => Number(value), serialize: (value: unknown) => String(value) } },
    onnotice: () => {},
    // Which pool connection a held connection is (its first statement carries its mark), so a
    // close of that connection reaches its holder: see held.ts.
    debug: (connection: number, text: string) => holders.bind(connection, text),
    onclose: (connection: number) => {
      closed++;
      holders.closed(connection);
    },
  }) as unknown as PostgresClient;

  const reserve = async (): Promise<HeldConnection> => {
    waiting++;
    let timer: NodeJS.Timeout | undefined;
    let gaveUp = false;
    const pending = client.reserve();
    try {
      const reserved = await Promise.race([
        pending,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            gaveUp = true;
            reject(connectTimeout(settings.connectTimeoutMs));
          }, settings.connectTimeoutMs);
        }),
      ]);
      busy++;
      return holders.hold(reserved, settings.queryTimeoutMs, () => busy--);
    } catch (error) {
      // A connection that comes after we gave up goes straight back.
      if (gaveUp) pending.then((late) => late.release(), () => {});
      else if (error instanceof Error) options.onConnectionError?.(error);
      throw error;
    } finally {
      waiting--;
      clearTimeout(timer);
    }
  };
  const dialect = new PostgresJSDialect({ postgres: () => ({ reserve, end: () => client.end({ timeout: 5 }) }) });
  return {
    client,
    dialect,
    reserve,
    stats: () => ({ busy, waiting, max: options.max, closed }),
    end: () => client.end({ timeout: 5 }),
  };
}

