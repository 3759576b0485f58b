import postgres from 'postgres';
import { PostgresJSDialect } from 'kysely-postgres-js';
import type { DatabaseSettings } from './settings.js';

/**
 * PostgreSQL through postgres.js (docs/architecture.md, "PostgreSQL client"): it reads the libpq
 * multi-host form `postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write` and, on
 * every new connection, tries the hosts in turn until one matches, so after a failover the pool
 * finds the new primary by itself. Kysely talks to it through `kysely-postgres-js`, wrapped here
 * for what postgres.js does not do: a client-side answer timeout, a bounded wait for a free
 * connection, and counts for /metrics.
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

/** A connection of the pool, held until `release`: its queries time out on the client (see `timed`). */
export interface HeldConnection {
  unsafe(text: string, parameters?: unknown[]): Promise<any[] & { command: string; count: number }>;
  /** Rows as arrays of column values, in select-list order. */
  values(text: string, parameters?: unknown[]): Promise<unknown[][]>;
  release(): void;
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

/** libpq's `any` is postgres.js's default (no attribute asked); it refuses the word itself. */
export function postgresJsUrl(url: string): string {
  return url.replace(/([?&])target_session_attrs=any(&|$)/, (_, lead: string, tail: string) => (tail ? lead : '')).replace(/\?$/, '');
}

/** postgres.js retries a host that refused after a backoff growing to 20 s; a failover wants the next try within a second. */
const reconnectDelaySeconds = (retries: number) => Math.min(0.05 * 2 ** Math.min(retries, 5), 1);

export function openPostgresPool(url: string, settings: DatabaseSettings, options: { max: number; schema?: string; onConnectionError?: (error: Error) => void }): PostgresPool {
  let closed = 0;
  let busy = 0;
  let waiting = 0;
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
    onclose: () => {
      closed++;
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
      return timed(reserved, settings.queryTimeoutMs, () => busy--);
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

type Reserved = Awaited<ReturnType<PostgresClient['reserve']>>;

/**
 * A reserved connection whose queries time out on the client: postgres.js waits for an answer
 * for ever, and a network that drops traffic never sends one. A query past `ms` is failed; the
 * connection is then broken for its holder (a rollback on it fails at once instead of queueing
 * behind the lost answer) and goes back to the pool only when that answer, or the socket's
 * death, finally settles it.
 *
 * postgres.js 3.4 counts a result's rows per connection and resets the count only when a
 * statement completes: after a statement that failed once rows had come, the next result on
 * that connection would start with holes. A connection whose statement failed therefore runs
 * one `select 1` (which completes, resetting the count) before it goes back to the pool.
 */
function timed(reserved: Reserved, ms: number, onRelease: () => void): HeldConnection {
  let inflight: Promise<unknown> = Promise.resolve();
  let broken = false;
  let failed = false;
  let released = false;
  const run = <T>(query: Promise<T>): Promise<T> => {
    inflight = query.then(
      () => {},
      () => {
        failed = true;
      },
    );
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      query,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          broken = true;
          reject(Object.assign(new Error('Query read timeout'), { code: 'QUERY_TIMEOUT' }));
        }, ms);
      }),
    ]).finally(() => clearTimeout(timer));
  };
  const refuse = () => Promise.reject(Object.assign(new Error('Query read timeout (the connection is waiting for an earlier answer)'), { code: 'QUERY_TIMEOUT' }));
  return {
    unsafe(text, parameters) {
      if (broken) return refuse();
      return run(reserved.unsafe(text, parameters as never[]));
    },
    values(text, parameters) {
      if (broken) return refuse();
      return run(reserved.unsafe(text, parameters as never[]).values() as unknown as Promise<unknown[][]>);
    },
    release() {
      if (released) return;
      released = true;
      void inflight
        .then(() => (failed ? reserved.unsafe('select 1').then(() => {}, () => {}) : undefined))
        .then(() => {
          reserved.release();
          onRelease();
        });
    },
  };
}
