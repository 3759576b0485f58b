import type SQLite from 'better-sqlite3';
import { SqliteDialect, SqliteDriver, type CompiledQuery, type DatabaseConnection, type Driver } from 'kysely';

/**
 * Kysely's SQLite driver with group commit and a fair lock.
 *
 * SQLite has one connection. Kysely's own driver wakes every waiter for it at once (the first to
 * run wins, so a stream of short queries can starve a transaction) and commits each transaction
 * alone: the commit writes every page the transaction touched to the WAL, so concurrent payments
 * write the same index pages again and again.
 *
 * Here the connection goes to its users first come, first served, and each transaction is a
 * SAVEPOINT of one SQLite transaction, RELEASEd (or rolled back alone) when it ends. That
 * transaction COMMITs at the end of the event loop's turn once nobody waits for the connection, or
 * after MAX_GROUP users: a payment's statements run back to back, so a group of the users already
 * queued would hold one payment. Every user of the group, reader or writer, is answered after the
 * COMMIT, so nothing is reported done (no response sent, no acquirer called) before it is on disk;
 * a crash before it loses the group, none of whose users had been answered. A lone transaction
 * waits one turn of the event loop. Statements run on Kysely's own connection, over `prepare`.
 */
const MAX_GROUP = 64;
const SAVEPOINT = 'kysely_group_member';

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

class GroupCommitSqliteDriver implements Driver {
  private readonly kysely: SqliteDriver;
  private connection!: DatabaseConnection;
  private held = false;
  /** Users waiting for the connection, in their order. */
  private readonly queue: (() => void)[] = [];
  /** The users of the open SQLite transaction, waiting for its COMMIT; null when none is open. */
  private group: Waiter[] | null = null;
  private flushScheduled = false;

  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly prepare: (sql: string) => SQLite.Statement,
  ) {
    this.kysely = new SqliteDriver({
      database: { prepare, close: () => sqlite.close() },
      onCreateConnection: async (connection) => {
        this.connection = {
          executeQuery: <R>(query: CompiledQuery) => {
            this.check();
            return connection.executeQuery<R>(query);
          },
          streamQuery: <R>(query: CompiledQuery, chunkSize?: number) => {
            this.check();
            return connection.streamQuery<R>(query, chunkSize);
          },
        };
      },
    });
  }

  async init(): Promise<void> {
    await this.kysely.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.held) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.held = true;
    return this.connection;
  }

  async beginTransaction(): Promise<void> {
    if (!this.group) {
      this.run('begin');
      this.group = [];
    }
    this.run(`savepoint ${SAVEPOINT}`);
  }

  async commitTransaction(): Promise<void> {
    this.run(`release ${SAVEPOINT}`);
  }

  async rollbackTransaction(): Promise<void> {
    // Some errors (a full disk, I/O) make SQLite roll back the whole transaction: the members
    // released before this one are gone with it, and learn so now.
    if (!this.sqlite.inTransaction) {
      if (this.group) this.flush();
      return;
    }
    this.run(`rollback to ${SAVEPOINT}`);
    this.run(`release ${SAVEPOINT}`);
  }

  async releaseConnection(): Promise<void> {
    const group = this.group;
    if (!group) return this.unlock();
    const durable = new Promise<void>((resolve, reject) => group.push({ resolve, reject }));
    // A group SQLite rolled back as a whole fails now, before anyone writes after it.
    if (group.length >= MAX_GROUP || !this.sqlite.inTransaction) this.flush();
    else if (this.queue.length === 0) this.flushSoon();
    this.unlock();
    return durable;
  }

  async destroy(): Promise<void> {
    if (this.group) this.flush();
    await this.kysely.destroy();
  }

  /** Hands the connection to the first in line (it stays held), or frees it. */
  private unlock(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.held = false;
  }

  private run(sql: string): void {
    this.prepare(sql).run();
  }

  /**
   * After SQLite rolled back the group's transaction as a whole, nothing may run as if it were
   * still open: it would autocommit, outside the group, and be kept.
   */
  private check(): void {
    if (this.group && !this.sqlite.inTransaction) throw new Error('the transaction group was rolled back by SQLite after an earlier statement failed; nothing of it was kept');
  }

  /**
   * COMMITs the group once the event loop has run what it has in hand: the requests read in this
   * turn start their transactions first and join it. If someone holds the connection then, their
   * release commits instead.
   */
  private flushSoon(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      if (this.group && !this.held) this.flush();
    });
  }

  /** COMMITs the group and answers its members. */
  private flush(): void {
    const group = this.group!;
    this.group = null;
    try {
      if (!this.sqlite.inTransaction) throw new Error('the transaction was rolled back by SQLite before its commit (see the error of the statement that failed)');
      this.run('commit');
    } catch (error) {
      try {
        if (this.sqlite.inTransaction) this.run('rollback');
      } catch {
        // Nothing more to undo.
      }
      for (const waiter of group) waiter.reject(error);
      return;
    }
    for (const waiter of group) waiter.resolve();
  }
}

/** SqliteDialect with the driver above. */
export class GroupCommitSqliteDialect extends SqliteDialect {
  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly prepare: (sql: string) => SQLite.Statement,
  ) {
    super({ database: sqlite });
  }

  override createDriver(): Driver {
    return new GroupCommitSqliteDriver(this.sqlite, this.prepare);
  }
}
