import { CompiledQuery, PostgresAdapter, PostgresDialect, type DatabaseConnection, type Driver, type QueryResult, type TransactionSettings } from 'kysely';
import type pg from 'pg';
import { nameStatement, statementName } from './named-statements.js';

/**
 * PostgreSQL: fewer round trips per transaction. Each statement sent is a round trip, and on
 * these machines a round trip costs the gateway ~65 us of CPU in `writev` alone (the loopback
 * send and the wake-up of the server's backend) and the backend as much again: in a profiled
 * billing run `writev` was 38 % of the gateway's CPU (docs/performance.md, issue 15).
 *
 * 1. Held writes. Inside a transaction, a write whose caller reads nothing back (marked with
 *    `writeBehind`: the inserts of `insertRows`, a job enqueued without its id) is held, not
 *    sent. The held writes go out with the transaction's next statement, in one round trip:
 *    writes into distinct tables as one statement of data-modifying WITH items (see `layers`),
 *    and the last such statement folded into the next one when that is a plain SELECT, INSERT,
 *    UPDATE or DELETE that names none of their tables (every part of one statement reads the
 *    same snapshot, so it may only be one that would not have seen their rows anyway); the
 *    others pipelined just before it (see 2), in order.
 * 2. Pipelining (node-postgres's pipeline mode, switched on for the pair only): BEGIN goes out
 *    with the transaction's first statement, and the writes still held at the end go out with
 *    COMMIT, each pair in one write and one round trip. A transaction that sent nothing sends
 *    no BEGIN and no COMMIT at all.
 *
 * 3. Reads ahead. A read whose answer its caller can wait for (`readAhead`: the account's webhook
 *    subscriptions, read when a payment's transaction starts and used when its event is written)
 *    is held like a write and goes out pipelined with the next statement; its answer comes back
 *    in that round trip and settles the caller's promise. Without it, that read was the one
 *    statement between a payment's writes, and split them into two round trips.
 *
 * Everything still runs in the transaction's order and commits or rolls back together. A held
 * write that fails (a constraint) fails the statement it went out with, so the transaction fails
 * as it would have, one statement later; pipelined after a failed statement, a COMMIT only ends
 * the failed transaction (PostgreSQL answers it ROLLBACK), and the failure is what is thrown.
 * Nothing is held outside a transaction.
 */
const held = new WeakSet<CompiledQuery>();

/** Marks a compiled write whose result the caller ignores: it may be held until the next statement. */
export function writeBehind<Q extends CompiledQuery>(query: Q): Q {
  held.add(query);
  return query;
}

interface Deferred {
  resolve(result: QueryResult<unknown>): void;
  reject(error: unknown): void;
}
/** Reads asked for with readAhead, and which of them a connection is holding. */
const ahead = new WeakMap<CompiledQuery, Deferred>();
const heldReads = new WeakSet<CompiledQuery>();
/** Held reads their connection has not sent yet. */
const unsent = new WeakSet<CompiledQuery>();

/**
 * Runs `query`, a read, so that its answer may come with the transaction's next round trip
 * (see 3 above): answers a promise of its result. Inside a PostgreSQL transaction the read is
 * held until the next statement (or COMMIT) goes out; anywhere else (SQLite, no transaction) it
 * runs now. A held read rejects when its transaction rolls back before it went out, or with the
 * error of the batch it went out in.
 */
/** What readAhead and sendHeld run on: a Kysely executor (the database or a transaction). */
interface Runner {
  getExecutor(): { adapter: object };
  executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>>;
}

export function readAhead<R>(db: Runner, query: CompiledQuery<R>): AheadRead<R> {
  // SQLite holds nothing: the read runs now, without the bookkeeping below (its weak maps cost
  // V8 ephemeron work on every payment, ~1 % of a SQLite payment's CPU).
  if (db.getExecutor().adapter.constructor !== PostgresAdapter) {
    const ran = db.executeQuery(query);
    ran.catch(() => {});
    return Object.assign(ran, { queued: ran.then(noop, noop), read: () => ran });
  }
  let queued!: Promise<void>;
  const answer = new Promise<QueryResult<R>>((resolve, reject) => {
    ahead.set(query, { resolve: resolve as Deferred['resolve'], reject });
    queued = db.executeQuery(query).then((result) => {
      // Not held: it ran now, and this is its answer. Held: send() settles the promise.
      if (!heldReads.has(query)) resolve(result);
    }, reject);
  });
  // A read ahead is often left unread (its transaction ended first, or the caller did not need
  // it after all): its rejection then reaches nobody, and must not surface as unhandled. A caller
  // awaiting it still gets the rejection.
  answer.catch(() => {});
  return Object.assign(answer, {
    queued,
    read: async () => {
      // Still held: nothing of the caller's own carried it, so it goes now (with whatever else is held).
      await queued;
      if (unsent.has(query)) await sendHeld(db);
      return answer;
    },
  });
}

/**
 * A read ahead's answer, and `queued`: settled once the read is held by its connection (or has
 * run). Kysely hands one transaction's statements to its connection one at a time, in an order
 * that is not always the order they were asked in; a caller whose next statement must carry
 * the read waits for `queued` before asking it.
 */
export type AheadRead<R> = Promise<QueryResult<R>> & {
  queued: Promise<void>;
  /**
   * The answer, for a caller about to wait for it: sends the read first if it is still held (a
   * held read waits for a next statement; awaited with none to come, it would wait forever).
   */
  read(): Promise<QueryResult<R>>;
};

function noop(): void {}

/** Not a statement: asks the connection to send what it holds (see sendHeld). */
const SEND_HELD = CompiledQuery.raw('-- send held');

/**
 * Sends what the transaction holds now (writes, reads ahead), if anything, and waits for the
 * answers. For a caller that read ahead and is about to await that read with no statement of
 * its own in between: held, the read would wait for a next statement that never comes. Nothing
 * to do on SQLite, where nothing is held.
 */
export async function sendHeld(db: Runner): Promise<void> {
  if (db.getExecutor().adapter.constructor !== PostgresAdapter) return;
  await db.executeQuery(SEND_HELD);
}

const INSERT_TARGET = /^insert into "([a-z_][a-z0-9_]*)"/i;
/** What may carry held writes in front of it: a plain statement, not a WITH of its own nor a locking read. */
const CARRIER = /^\s*(select|insert|update|delete)\s/i;
const NOT_CARRIER = /\bfor\s+(update|share|no key update|key share)\b/i;
const BEGIN = CompiledQuery.raw('begin');
const COMMIT = CompiledQuery.raw('commit');

/**
 * What is learnt from a statement's text, kept by text. The hot statements are the same few
 * strings on every call, and working these out again (regular expressions over texts of 2-3 KB,
 * a RegExp built per held write, the renumbered WITH text) cost the gateway ~3 % of its CPU per
 * payment on PostgreSQL (docs/performance.md, issue 15). Bounded: texts built per call (IN lists
 * of varying length) start the memo over instead of growing it.
 */
const MEMO_LIMIT = 2000;

function memoByText<T>(work: (text: string) => T): (text: string) => T {
  const memo = new Map<string, T>();
  return (text) => {
    let found = memo.get(text);
    if (found === undefined && !memo.has(text)) {
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(text, (found = work(text)));
    }
    return found as T;
  };
}

/** The table an INSERT writes, '' for any other statement. */
const tableOf = memoByText((text) => INSERT_TARGET.exec(text)?.[1] ?? '');
/** May this statement carry held writes at all? */
const carries = memoByText((text) => CARRIER.test(text) && !NOT_CARRIER.test(text));
/** Does this statement name the table (as a word, quoted or not)? */
const names = memoByText((text) => memoByText((table) => new RegExp(`\\b${table}\\b`, 'i').test(text)));

function shifted(query: CompiledQuery, offset: number): string {
  // Only the held writes are renumbered: they are insertRows' own SQL, with no literal that could hold a "$".
  return offset === 0 ? query.sql : query.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
}

/**
 * The text of `with w0 as (...), w1 as (...) <carrier>` for these parts, kept in a tree keyed by
 * the parts' texts (their parameter counts follow from the texts). Only named parts are kept:
 * they are the bounded set of hot statements; anything else is written out per call.
 */
interface CombinedText {
  next: Map<string, CombinedText>;
  text?: string;
}
const combinedTexts: CombinedText = { next: new Map() };
let combinedCount = 0;

function combinedText(writes: CompiledQuery[], carrier: CompiledQuery | undefined): string {
  const named = (carrier === undefined || statementName(carrier.sql) !== undefined) && writes.every((w) => statementName(w.sql) !== undefined);
  if (!named) return writeCombined(writes, carrier);
  let node = combinedTexts;
  for (const part of [carrier?.sql ?? '', ...writes.map((w) => w.sql)]) {
    let child = node.next.get(part);
    if (!child) node.next.set(part, (child = { next: new Map() }));
    node = child;
  }
  if (node.text === undefined) {
    if (++combinedCount > MEMO_LIMIT) {
      combinedTexts.next.clear();
      combinedCount = 0;
    }
    node.text = writeCombined(writes, carrier);
    // Named like its parts: the same few combinations recur on the hot paths.
    nameStatement(node.text);
  }
  return node.text;
}

function writeCombined(writes: CompiledQuery[], carrier: CompiledQuery | undefined): string {
  let offset = carrier ? carrier.parameters.length : 0;
  const items = writes.map((write, i) => {
    const text = `w${i} as (${shifted(write, offset)})`;
    offset += write.parameters.length;
    return text;
  });
  return `with ${items.join(', ')} ${carrier ? carrier.sql : 'select 1'}`;
}

/** `with w0 as (...), w1 as (...) <carrier>`: the held writes, then the carrier, as one statement. */
function combine(writes: CompiledQuery[], carrier: CompiledQuery | undefined): CompiledQuery {
  if (carrier === undefined && writes.length === 1) return writes[0];
  const parameters: unknown[] = carrier ? [...carrier.parameters] : [];
  for (const write of writes) for (const value of write.parameters) parameters.push(value);
  return CompiledQuery.raw(combinedText(writes, carrier), parameters);
}

/**
 * The held writes as statements to send in order: consecutive writes into distinct tables share
 * one statement (WITH items); a write into a table already in it starts the next. PostgreSQL runs
 * the WITH items of one statement in no promised order, and writes into distinct tables cannot
 * tell (foreign keys are checked at the statement's end, the schema has no triggers); two into
 * one table could (which of two rows under one dedupe key wins, the order of identity ids).
 */
function layers(writes: CompiledQuery[]): CompiledQuery[][] {
  const out: CompiledQuery[][] = [];
  let tables = new Set<string>();
  for (const write of writes) {
    const table = tableOf(write.sql);
    if (out.length === 0 || table === '' || tables.has(table)) {
      out.push([write]);
      tables = new Set([table]);
    } else {
      out.at(-1)!.push(write);
      tables.add(table);
    }
  }
  return out;
}

function mayCarry(writes: CompiledQuery[], query: CompiledQuery): boolean {
  if (!carries(query.sql)) return false;
  const named = names(query.sql);
  return writes.every((write) => {
    const table = tableOf(write.sql);
    // The name as a word, quoted or not (hand-written SQL): a false match only costs a statement.
    return table !== '' && !named(table);
  });
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

type PgResult = { command: string; rowCount: number | null; rows: unknown[] };

function toQueryResult<R>(result: PgResult): QueryResult<R> {
  const { command, rowCount, rows } = result;
  const counted = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
  return { numAffectedRows: counted ? BigInt(rowCount ?? 0) : undefined, rows: (rows ?? []) as R[] };
}

class PipelinedConnection implements DatabaseConnection {
  /** BEGIN was asked for and not sent yet: it goes out with the first statement. */
  private beginPending = false;
  private beginStatement = BEGIN;
  /** BEGIN went out: COMMIT and ROLLBACK have a transaction to end. */
  private begun = false;
  private pending: CompiledQuery[] = [];

  constructor(readonly client: pg.PoolClient) {}

  get inTransaction(): boolean {
    return this.beginPending || this.begun;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (query === SEND_HELD) {
      await this.flush();
      return { rows: [] };
    }
    if (this.inTransaction && (held.has(query) || ahead.has(query))) {
      if (ahead.has(query)) {
        heldReads.add(query);
        unsent.add(query);
      }
      this.pending.push(query);
      return { rows: [] };
    }
    // Outside a transaction a read ahead simply runs (readAhead takes this answer).
    ahead.delete(query);
    return toQueryResult<R>(await this.send(this.owed(query)));
  }

  /**
   * What goes out before (or with) the next statement, which it ends with when there is one:
   * BEGIN if it has not gone out yet, then the held writes, a statement per layer; the last
   * layer rides `next` as its WITH items when it may (mayCarry). The held writes are let go and
   * the transaction counts as begun.
   */
  private owed(next?: CompiledQuery): CompiledQuery[] {
    const batch: CompiledQuery[] = this.beginPending ? [this.beginStatement] : [];
    if (this.beginPending) {
      this.beginPending = false;
      this.begun = true;
    }
    // Reads ahead keep their place: the writes held before one go out before it.
    let writes: CompiledQuery[] = [];
    for (const query of this.pending) {
      unsent.delete(query);
      if (!ahead.has(query)) {
        writes.push(query);
        continue;
      }
      for (const group of layers(writes)) batch.push(combine(group, undefined));
      writes = [];
      batch.push(query);
    }
    this.pending = [];
    const groups = layers(writes);
    const carried = next !== undefined && groups.length > 0 && mayCarry(groups.at(-1)!, next) ? groups.pop() : undefined;
    for (const group of groups) batch.push(combine(group, undefined));
    if (next !== undefined) batch.push(carried ? combine(carried, next) : next);
    return batch;
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streamed queries are not configured for PostgreSQL (range reads use COPY, src/db/pg-copy.ts)');
  }

  /** BEGIN (or START TRANSACTION with its settings), sent with the first statement. */
  begin(statement: CompiledQuery = BEGIN): void {
    this.beginPending = true;
    this.beginStatement = statement;
  }

  async commit(): Promise<void> {
    // Nothing was sent nor held: there is no transaction to end.
    if (!this.begun && this.pending.length === 0) return void (this.beginPending = false);
    const batch = this.owed();
    batch.push(COMMIT);
    this.begun = false;
    await this.send(batch);
  }

  /** Lets go of what is held without sending it: a held read learns that it never ran. */
  private dropPending(why: string): void {
    for (const query of this.pending) {
      unsent.delete(query);
      ahead.get(query)?.reject(new Error(why));
    }
    this.pending = [];
  }

  async rollback(): Promise<void> {
    this.dropPending('the transaction rolled back before this read was sent');
    this.beginPending = false;
    if (!this.begun) return;
    this.begun = false;
    await this.send([CompiledQuery.raw('rollback')]);
  }

  /** Sends what is held alone first (a savepoint command must come after it). */
  async flush(): Promise<void> {
    if (this.pending.length === 0 && !this.beginPending) return;
    await this.send(this.owed());
  }

  /** Drops what was held since a savepoint (rolled back to it: never sent). */
  dropHeld(): void {
    this.dropPending('rolled back to a savepoint before this read was sent');
  }

  /**
   * The statements in order, in one write: node-postgres's pipeline mode for the batch only (a
   * COPY, which pipeline mode refuses, always runs alone). Answers the last one's result; the
   * first failure is thrown once every answer is in, so the connection is left in step.
   */
  private async send(batch: CompiledQuery[]): Promise<PgResult> {
    const client = this.client as pg.PoolClient & { pipeline: boolean; connection: { stream: { cork?(): void; uncork?(): void } } };
    try {
      if (batch.length === 1 && !heldReads.has(batch[0])) return (await client.query(batch[0].sql, [...batch[0].parameters])) as PgResult;
      client.pipeline = true;
      const stream = client.connection.stream;
      stream.cork?.();
      let answers: Promise<PgResult>[];
      try {
        answers = batch.map((q) => client.query(q.sql, [...q.parameters]) as unknown as Promise<PgResult>);
      } finally {
        stream.uncork?.();
      }
      const settled = await Promise.allSettled(answers);
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      batch.forEach((query, i) => {
        const answer = settled[i];
        if (answer.status === 'fulfilled') ahead.get(query)?.resolve(toQueryResult(answer.value));
        else ahead.get(query)?.reject(answer.reason);
      });
      if (failed) throw failed.reason;
      return (settled.at(-1) as PromiseFulfilledResult<PgResult>).value;
    } catch (error) {
      // A batch that could not go out at all: its held reads learn so (settled ones stay settled).
      for (const query of batch) ahead.get(query)?.reject(error);
      throw error;
    } finally {
      client.pipeline = false;
    }
  }
}

/** Kysely's driver for PostgreSQL over a pg.Pool, with held writes and pipelined BEGIN/COMMIT (above). */
export class PipelinedPostgresDriver implements Driver {
  constructor(private readonly pool: pg.Pool) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new PipelinedConnection(await this.pool.connect());
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let text = 'begin';
    if (settings.isolationLevel || settings.accessMode) {
      text = 'start transaction';
      if (settings.isolationLevel) text += ` isolation level ${settings.isolationLevel}`;
      if (settings.accessMode) text += ` ${settings.accessMode}`;
    }
    (connection as PipelinedConnection).begin(text === 'begin' ? BEGIN : CompiledQuery.raw(text));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    // A held write that fails here fails the commit: Kysely then rolls the transaction back.
    await (connection as PipelinedConnection).commit();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PipelinedConnection).rollback();
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    const c = connection as PipelinedConnection;
    // What was held before the savepoint belongs before it.
    await c.flush();
    await c.executeQuery(CompiledQuery.raw(`savepoint ${quoted(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    const c = connection as PipelinedConnection;
    c.dropHeld();
    await c.executeQuery(CompiledQuery.raw(`rollback to savepoint ${quoted(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    const c = connection as PipelinedConnection;
    await c.flush();
    await c.executeQuery(CompiledQuery.raw(`release savepoint ${quoted(name)}`));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PipelinedConnection).client.release();
  }

  async destroy(): Promise<void> {
    await this.pool.end();
  }
}

/** PostgresDialect (its compiler, adapter and introspector) with the driver above. */
export class PipelinedPostgresDialect extends PostgresDialect {
  constructor(private readonly pgPool: pg.Pool) {
    super({ pool: pgPool });
  }

  override createDriver(): Driver {
    return new PipelinedPostgresDriver(this.pgPool);
  }
}
