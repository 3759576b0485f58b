import type postgres from 'postgres';

/**
 * Connections of the postgres.js pool held by Kysely (one statement, or a transaction) and by
 * the array reads, with what postgres.js 3.4 leaves to its caller:
 *
 * - an answer timeout: postgres.js waits for an answer for ever, and a network that drops
 *   traffic never sends one. A statement past `ms` is failed; the connection is then broken for
 *   its holder (a rollback on it fails at once instead of queueing behind the lost answer) and
 *   goes back to the pool only when that answer, or the socket's death, settles it;
 * - a held connection that closed (a failover, a terminated backend) must not be used again:
 *   postgres.js would write the next statement to a socket that is gone (an uncaught TypeError
 *   that ends the process) or to the connection it reopened for someone else, and giving it back
 *   would put it in the idle queue while it is closed or reconnecting. The pool reports closes
 *   by connection number; each held connection learns its number from its first statement,
 *   which carries a mark (`debug` hands the text and the number over when it is sent). A closed
 *   one refuses its holder's statements (503, like any lost connection) and is not given back;
 * - postgres.js counts a result's rows per connection and resets the count only when a
 *   statement completes: after a statement that failed once rows had come, the next result on
 *   that connection would start with holes. A connection whose statement failed runs one
 *   `select 1` (it completes, resetting the count) before it goes back.
 */
type Reserved = postgres.ReservedSql<{ bigint: number }>;

/** A connection of the pool, held until `release`. */
export interface HeldConnection {
  unsafe(text: string, parameters?: unknown[]): Promise<any[] & { command: string; count: number }>;
  /** Rows as arrays of column values, in select-list order. */
  values(text: string, parameters?: unknown[]): Promise<unknown[][]>;
  release(): void;
}

const MARK = /^\/\*held:(\d+)\*\/ /;

const coded = (message: string, code: string) => Object.assign(new Error(message), { code });

export class Holders {
  private next = 1;
  private readonly unbound = new Map<number, Held>();
  private readonly byConnection = new Map<number, Held>();

  hold(reserved: Reserved, ms: number, onRelease: () => void): HeldConnection {
    const id = this.next++;
    const held = new Held(id, reserved, ms, () => {
      this.unbound.delete(id);
      if (held.connection !== undefined && this.byConnection.get(held.connection) === held) this.byConnection.delete(held.connection);
      onRelease();
    });
    this.unbound.set(id, held);
    return held;
  }

  /** postgres.js's `debug`: a statement is being sent on `connection`. */
  bind(connection: number, text: string): void {
    const mark = MARK.exec(text);
    if (!mark) return;
    const held = this.unbound.get(Number(mark[1]));
    if (!held) return;
    this.unbound.delete(held.id);
    held.connection = connection;
    this.byConnection.set(connection, held);
  }

  /** postgres.js's `onclose`. */
  closed(connection: number): void {
    const held = this.byConnection.get(connection);
    if (!held) return;
    this.byConnection.delete(connection);
    held.lost();
  }
}

/** A statement's error that means its connection is gone (postgres.js closes it), not that the statement failed. */
function connectionLost(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  if (severity === 'FATAL' || severity === 'PANIC') return true;
  return typeof code === 'string' && (/^CONNECTION_|^CONNECT_TIMEOUT$/.test(code) || /^E[A-Z]+$/.test(code));
}

/**
 * With a `debug` hook postgres.js makes an error's statement, parameters and types enumerable, so
 * a logged error would carry the values bound (sealed card data, tokens): hidden again.
 */
function hideStatement(error: unknown): void {
  if (!error || typeof error !== 'object') return;
  for (const key of ['query', 'parameters', 'args', 'types']) {
    const descriptor = Object.getOwnPropertyDescriptor(error, key);
    if (descriptor?.enumerable && descriptor.configurable) Object.defineProperty(error, key, { ...descriptor, enumerable: false });
  }
}

class Held implements HeldConnection {
  connection: number | undefined;
  private marked_ = false;
  private inflight: Promise<unknown> = Promise.resolve();
  private broken = false;
  private gone = false;
  private failed = false;
  private released = false;

  constructor(
    readonly id: number,
    private readonly reserved: Reserved,
    private readonly ms: number,
    private readonly onRelease: () => void,
  ) {}

  unsafe(text: string, parameters?: unknown[]) {
    return this.run(() => this.reserved.unsafe(...this.marked(text, parameters))) as Promise<any[] & { command: string; count: number }>;
  }

  values(text: string, parameters?: unknown[]) {
    return this.run(() => this.reserved.unsafe(...this.marked(text, parameters)).values()) as Promise<unknown[][]>;
  }

  /** The connection closed under its holder. */
  lost(): void {
    this.gone = true;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    void this.inflight
      .then(() => (this.failed && !this.gone ? this.reserved.unsafe('select 1').then(() => {}, () => {}) : undefined))
      .then(() => {
        if (!this.gone) this.reserved.release();
        this.onRelease();
      });
  }

  /**
   * The first statement carries this holder's mark, unprepared: a marked text is new each time,
   * and preparing it would add a statement to the connection's cache for every holder.
   */
  private marked(text: string, parameters?: unknown[]): [string, never[], { prepare: boolean }] {
    if (this.marked_) return [text, (parameters ?? []) as never[], { prepare: true }];
    this.marked_ = true;
    return [`/*held:${this.id}*/ ${text}`, (parameters ?? []) as never[], { prepare: false }];
  }

  private run<T>(start: () => PromiseLike<T>): Promise<T> {
    if (this.gone) return Promise.reject(coded('the database connection closed (a failover, a restart or a terminated backend)', 'CONNECTION_CLOSED'));
    if (this.broken) return Promise.reject(coded('Query read timeout (the connection is waiting for an earlier answer)', 'QUERY_TIMEOUT'));
    const query = Promise.resolve(start());
    this.inflight = query.then(
      () => {},
      (error: unknown) => {
        hideStatement(error);
        this.failed = true;
        if (connectionLost(error)) this.gone = true;
      },
    );
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      query,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          this.broken = true;
          reject(coded('Query read timeout', 'QUERY_TIMEOUT'));
        }, this.ms);
      }),
    ]).finally(() => clearTimeout(timer));
  }
}
