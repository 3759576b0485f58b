import type SQLite from 'better-sqlite3';
import { CompiledQuery, SelectQueryNode, SqliteDialect, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';

/**
 * Kysely's SQLite driver with group commit and a fair lock.
 *
 * SQLite has one connection; Kysely's own driver serialises its users with a lock that wakes
 * every waiter at once (the first to run wins, so a steady stream of short queries can starve a
 * transaction), and commits each transaction on its own: the commit writes every page the
 * transaction touched to the WAL, so concurrent payments that touch the same index pages write
 * them again and again.
 *
 * Here the lock is first come, first served, and the transactions of users already waiting for the
 * connection are grouped into one SQLite transaction: each is a SAVEPOINT that is RELEASEd (or
 * rolled back alone) when it ends. The group COMMITs at the end of the event loop's turn once
 * nobody is waiting for the connection (or at once after MAX_GROUP users): the requests of one turn
 * rarely queue on the connection (a payment's statements run back to back), so waiting for a queue
 * alone made groups of one, and each payment paid a whole COMMIT (every page it touched written to
 * the WAL, the shared index pages again by the next payment). Durability is unchanged: every user
 * of the group, reader or writer, is answered only after that COMMIT, so nothing is reported done
 * (no response sent, no acquirer called after a payment's first transaction) before it is on disk;
 * a crash before the COMMIT loses the group as a whole, none of whose users had been answered. A
 * lone transaction waits one turn of the event loop for its COMMIT.
 */
const MAX_GROUP = 64;
const SAVEPOINT = 'kysely_group_member';

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

class FifoLock {
  private _held = false;
  private readonly queue: (() => void)[] = [];

  get held(): boolean {
    return this._held;
  }

  get waiting(): number {
    return this.queue.length;
  }

  lock(): Promise<void> {
    if (!this._held) {
      this._held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  /** Hands the connection to the first waiter (it stays held), or frees it. */
  unlock(): void {
    const next = this.queue.shift();
    if (next) next();
    else this._held = false;
  }
}

type Prepare = (sql: string) => SQLite.Statement;

class GroupConnection implements DatabaseConnection {
  constructor(
    private readonly prepare: Prepare,
    /** Throws when the group this connection writes into was lost (see GroupCommitSqliteDriver.check). */
    private readonly check: () => void,
  ) {}

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    this.check();
    const { sql, parameters } = compiledQuery;
    const statement = this.prepare(sql);
    if (statement.reader) return Promise.resolve({ rows: statement.all(parameters) as R[] });
    const { changes, lastInsertRowid } = statement.run(parameters);
    return Promise.resolve({
      numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
      insertId: lastInsertRowid !== undefined && lastInsertRowid !== null ? BigInt(lastInsertRowid) : undefined,
      rows: [],
    });
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const { sql, parameters, query } = compiledQuery;
    if (!SelectQueryNode.is(query)) throw new Error('Sqlite driver only supports streaming of select queries');
    this.check();
    for (const row of this.prepare(sql).iterate(parameters)) yield { rows: [row as R] };
  }
}

export class GroupCommitSqliteDriver implements Driver {
  private readonly lock = new FifoLock();
  private readonly connection: GroupConnection;
  /** The open SQLite transaction and the users waiting for its COMMIT; null when none is open. */
  private group: { members: number; waiters: Waiter[] } | null = null;

  /** The group's own statements, prepared once (exec would parse them on every transaction). */
  private readonly control: Record<'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackTo', SQLite.Statement>;

  constructor(
    private readonly sqlite: SQLite.Database,
    prepare: Prepare,
  ) {
    this.connection = new GroupConnection(prepare, () => this.check());
    this.control = {
      begin: sqlite.prepare('begin'),
      commit: sqlite.prepare('commit'),
      rollback: sqlite.prepare('rollback'),
      savepoint: sqlite.prepare(`savepoint ${SAVEPOINT}`),
      release: sqlite.prepare(`release ${SAVEPOINT}`),
      rollbackTo: sqlite.prepare(`rollback to ${SAVEPOINT}`),
    };
  }

  /**
   * An error that rolls back a whole SQLite transaction (a full disk, I/O) takes the group's
   * released members with it. Their users learn so at the COMMIT; until then nothing may run as
   * if the group were still open (it would autocommit, outside the group, and be kept).
   */
  private check(): void {
    if (this.group && !this.sqlite.inTransaction) throw new Error('the transaction group was rolled back by SQLite after an earlier statement failed; nothing of it was kept');
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.lock.lock();
    return this.connection;
  }

  async beginTransaction(): Promise<void> {
    if (!this.group) {
      this.control.begin.run();
      this.group = { members: 0, waiters: [] };
    }
    this.control.savepoint.run();
  }

  async commitTransaction(): Promise<void> {
    this.control.release.run();
  }

  async rollbackTransaction(): Promise<void> {
    // Some errors (a full disk, I/O) make SQLite roll back the whole transaction: the members
    // released before this one are gone with it, and learn so now (flush rejects them).
    if (!this.sqlite.inTransaction) {
      if (this.group) this.flush();
      return;
    }
    this.control.rollbackTo.run();
    this.control.release.run();
  }

  async releaseConnection(): Promise<void> {
    const group = this.group;
    if (!group) return this.lock.unlock();
    group.members += 1;
    const durable = new Promise<void>((resolve, reject) => group.waiters.push({ resolve, reject }));
    if (group.members >= MAX_GROUP) this.flush();
    else if (this.lock.waiting === 0) this.flushSoon();
    this.lock.unlock();
    return durable;
  }

  async destroy(): Promise<void> {
    if (this.group) this.flush();
    this.sqlite.close();
  }

  private flushScheduled = false;

  /**
   * COMMITs the group once the event loop has run what it already has in hand: the requests
   * read in this turn start their transactions before it, without waiting on each other, and
   * join the group. If someone holds the connection then, their release commits instead.
   */
  private flushSoon(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      if (!this.group) return;
      if (this.lock.held) return;
      this.flush();
    });
  }

  /** COMMITs the group and answers its members (the connection is still held by the caller). */
  private flush(): void {
    const group = this.group!;
    this.group = null;
    try {
      if (!this.sqlite.inTransaction) throw new Error('the transaction was rolled back by SQLite before its commit (see the error of the statement that failed)');
      this.control.commit.run();
    } catch (error) {
      try {
        if (this.sqlite.inTransaction) this.control.rollback.run();
      } catch {
        // Nothing more to undo.
      }
      for (const waiter of group.waiters) waiter.reject(error);
      return;
    }
    for (const waiter of group.waiters) waiter.resolve();
  }
}

/** SqliteDialect with the driver above. */
export class GroupCommitSqliteDialect extends SqliteDialect {
  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly prepare: Prepare,
  ) {
    super({ database: sqlite });
  }

  override createDriver(): Driver {
    return new GroupCommitSqliteDriver(this.sqlite, this.prepare);
  }
}

