import { CompiledQuery, PostgresDialect, PostgresDriver, type DatabaseConnection, type Driver, type PostgresDialectConfig, type QueryResult, type TransactionSettings } from 'kysely';
import { nameStatement, statementName } from './named-statements.js';

/**
 * PostgreSQL: fewer round trips per transaction. Each statement sent is a round trip, and on
 * these machines a round trip costs the gateway ~70 us of CPU in `writev` alone (the loopback
 * send and the wake-up of the server's backend) plus the backend's own: in a profiled billing
 * run, `writev` was 38 % of the gateway's CPU (docs/performance.md, issue 15).
 *
 * Inside a transaction, a write whose caller reads nothing back (marked with `writeBehind`:
 * the inserts of `insertRows`) is held, not sent. The held writes go out with the next
 * statement of the transaction, in one round trip:
 * - as data-modifying WITH items of that statement, when it is a plain SELECT, INSERT, UPDATE
 *   or DELETE that names none of the held writes' tables (it cannot see their rows, since
 *   every part of one statement reads the same snapshot, so it may only be one that would not
 *   have seen them anyway);
 * - otherwise (and at COMMIT, and before a savepoint) as one statement of their own first.
 * Everything still runs in the transaction's order and commits or rolls back together; a held
 * write that fails (a constraint) fails the statement it went out with, so the transaction
 * fails exactly as it would have, one statement later. Nothing is held outside a transaction.
 */
const held = new WeakSet<CompiledQuery>();

/** Marks a compiled write whose result the caller ignores: it may be held until the next statement. */
export function writeBehind<Q extends CompiledQuery>(query: Q): Q {
  held.add(query);
  return query;
}

const INSERT_TARGET = /^insert into "([a-z_][a-z0-9_]*)"/i;
/** What may carry held writes in front of it: a plain statement, not a WITH of its own nor a locking read. */
const CARRIER = /^\s*(select|insert|update|delete)\s/i;
const NOT_CARRIER = /\bfor\s+(update|share|no key update|key share)\b/i;

function shifted(query: CompiledQuery, offset: number): string {
  // Only the held writes are renumbered: they are insertRows' own SQL, with no literal that could hold a "$".
  return offset === 0 ? query.sql : query.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
}

/** `with w0 as (...), w1 as (...) <carrier>`: the held writes, then the carrier, as one statement. */
function combine(writes: CompiledQuery[], carrier: CompiledQuery | undefined): CompiledQuery {
  const parameters: unknown[] = carrier ? [...carrier.parameters] : [];
  const items = writes.map((write, i) => {
    const text = `w${i} as (${shifted(write, parameters.length)})`;
    parameters.push(...write.parameters);
    return text;
  });
  const sql = `with ${items.join(', ')} ${carrier ? carrier.sql : 'select 1'}`;
  // Named like its parts when they all are: the same few combinations recur on the hot paths.
  if ((carrier === undefined || statementName(carrier.sql) !== undefined) && writes.every((w) => statementName(w.sql) !== undefined)) nameStatement(sql);
  return CompiledQuery.raw(sql, parameters);
}

function mayCarry(writes: CompiledQuery[], query: CompiledQuery): boolean {
  if (!CARRIER.test(query.sql) || NOT_CARRIER.test(query.sql)) return false;
  return writes.every((write) => {
    const table = INSERT_TARGET.exec(write.sql)?.[1];
    // The name as a word, quoted or not (hand-written SQL): a false match only costs a round trip.
    return table !== undefined && !new RegExp(`\\b${table}\\b`, 'i').test(query.sql);
  });
}

class WriteBehindConnection implements DatabaseConnection {
  inTransaction = false;
  pending: CompiledQuery[] = [];

  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.inTransaction && held.has(query)) {
      this.pending.push(query);
      return { rows: [] };
    }
    if (this.pending.length === 0) return this.inner.executeQuery<R>(query);
    const writes = this.pending;
    this.pending = [];
    if (mayCarry(writes, query)) return this.inner.executeQuery<R>(combine(writes, query));
    await this.inner.executeQuery(writes.length === 1 ? writes[0] : combine(writes, undefined));
    return this.inner.executeQuery<R>(query);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    if (this.pending.length > 0) throw new Error('write-behind: a streamed read inside a transaction with held writes');
    return this.inner.streamQuery<R>(query, chunkSize);
  }

  /** Sends what is held, alone (before COMMIT, a savepoint, or a query that cannot carry it). */
  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const writes = this.pending;
    this.pending = [];
    await this.inner.executeQuery(writes.length === 1 ? writes[0] : combine(writes, undefined));
  }
}

/** Kysely's PostgreSQL driver, with held writes (above). */
export class WriteBehindDriver implements Driver {
  private readonly inner: PostgresDriver;

  constructor(config: PostgresDialectConfig) {
    this.inner = new PostgresDriver(config);
  }

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new WriteBehindConnection(await this.inner.acquireConnection());
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const c = connection as WriteBehindConnection;
    await this.inner.beginTransaction(c.inner, settings);
    c.inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as WriteBehindConnection;
    // A held write that fails here fails the commit: Kysely then rolls the transaction back.
    await c.flush();
    c.inTransaction = false;
    await this.inner.commitTransaction(c.inner);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as WriteBehindConnection;
    c.pending = [];
    c.inTransaction = false;
    await this.inner.rollbackTransaction(c.inner);
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    const c = connection as WriteBehindConnection;
    await c.flush();
    await this.inner.savepoint(c.inner, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['rollbackToSavepoint']>>[2]): Promise<void> {
    const c = connection as WriteBehindConnection;
    // Held writes made after the savepoint are undone with it: never sent.
    c.pending = [];
    await this.inner.rollbackToSavepoint(c.inner, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['releaseSavepoint']>>[2]): Promise<void> {
    const c = connection as WriteBehindConnection;
    await c.flush();
    await this.inner.releaseSavepoint(c.inner, name, compile);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const c = connection as WriteBehindConnection;
    c.pending = [];
    c.inTransaction = false;
    await this.inner.releaseConnection(c.inner as Parameters<PostgresDriver['releaseConnection']>[0]);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** PostgresDialect with the write-behind driver. */
export class WriteBehindPostgresDialect extends PostgresDialect {
  constructor(private readonly config: PostgresDialectConfig) {
    super(config);
  }

  override createDriver(): Driver {
    return new WriteBehindDriver(this.config);
  }
}
