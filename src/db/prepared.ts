import { CompiledQuery, PostgresAdapter, type Compilable, type Expression, type Insertable, type QueryResult } from 'kysely';
import type { Executor } from './connection.js';
import { nameStatement } from './named-statements.js';
import { hasStatistics, watchStatistics } from './statistics-gate.js';
import { readAhead, writeBehind, type AheadRead } from './pg-driver.js';
import type { DB } from './schema.js';

/**
 * Queries built and compiled once per dialect, then run with new values: building and
 * compiling a Kysely query costs about as much as SQLite running it (tens of microseconds, on
 * every call of the payment path). The query is built with a marker in place of each value;
 * the compiled parameters that carry a marker become slots filled per call, the others
 * (constants of the query itself) are kept.
 *
 * The values a query takes must be values (a marker cannot stand for a column list, an `in`
 * list of varying length or an optional clause): such a query keeps one template per shape,
 * as `prepared` is keyed by the caller.
 */
const MARK = '\u0001';

type Parameter = { slot: string } | { constant: unknown };

/** Reads the compiled parameters in order from what a call passes (the values, or insertRows' rows). */
type Fill = (source: any) => unknown[];

interface Template {
  sql: string;
  /** PostgreSQL, `planEachCall: { untilAnalyzed }`: the same statement, sent unnamed (another text). */
  unnamedSql?: string;
  fill: Fill;
  /** `writeBehind` on PostgreSQL (SQLite holds nothing, so nothing is marked there). */
  holdWrite: boolean;
}

function missing(slot: string): never {
  throw new Error(`prepared query: no value for "${slot}"`);
}

/**
 * The parameter array of a call, written out as one function per template: `(s) => [s["merchantId"],
 * c[1], ...]`. Looking each slot up by a name held in a variable was a megamorphic keyed load per
 * parameter, and insertRows built a `row.column` key string per column on top (about 7 % of a
 * payment's CPU time for ~80 parameters, measured). The generated code reads fixed property
 * names, which V8's inline caches serve. Slot names come from our own query builders, never
 * from input, and are quoted with JSON.stringify.
 */
function fillerOf(parameters: Parameter[], access: (slot: string) => string): Fill {
  const constants = parameters.map((p) => ('constant' in p ? p.constant : undefined));
  const items = parameters.map((p, i) => {
    if (!('slot' in p)) return `c[${i}]`;
    const read = access(p.slot);
    return `(${read} === undefined ? missing(${JSON.stringify(p.slot)}) : ${read})`;
  });
  return new Function('c', 'missing', `return (s) => [${items.join(', ')}];`)(constants, missing) as Fill;
}

const byName = (slot: string) => `s[${JSON.stringify(slot)}]`;

// Appended to the text of the unnamed variant: named statements are looked up by their text.
const PLANNED_PER_CALL = ' /* planned per call */';

export interface PreparedQuery<V, R> {
  /** Runs the query on `db` (the database or a transaction) with these values. */
  execute(db: Executor, values: V): Promise<QueryResult<R>>;
  /** The first row, or undefined. */
  first(db: Executor, values: V): Promise<R | undefined>;
  /**
   * A read whose answer the caller awaits later: in a PostgreSQL transaction it goes out with the
   * transaction's next round trip instead of one of its own (src/db/pg-driver.ts, `readAhead`).
   */
  readAhead(db: Executor, values: V): AheadRead<R>;
  /** `readAhead` for the first row: `queued` as there, `read()` answers the row or undefined. */
  firstAhead(db: Executor, values: V): FirstAhead<R>;
}

/** A read ahead of one row (PreparedQuery.firstAhead). */
export interface FirstAhead<R> {
  /** Settles once the transaction holds the read: ask the statement that should carry it after. */
  queued: Promise<void>;
  read(): Promise<R | undefined>;
}

/**
 * A scalar expression that one module lends a statement another module prepares: built once
 * into the borrower's template from its slot reader, with the values of the lender's own slots
 * (named apart from the borrower's). The lender keeps its table to itself; the borrower only
 * places the expression. `kind` names the template variant it makes (one compiled statement
 * per kind).
 */
export interface LentExpression {
  kind: string;
  build(db: Executor, v: (slot: string) => any): Expression<unknown>;
  values: Record<string, unknown>;
}

export interface PreparedOptions {
  /**
   * PostgreSQL: plan the query for each call's values (sent unnamed) instead of once per
   * connection. For a query whose best plan depends on the values or on the table's size: a
   * named statement's generic plan, chosen while a table is small, can scan what an index
   * should have found (the anti-fraud velocity counts did: 5 ms instead of 0.15 ms).
   * `{ untilAnalyzed: table }`: only until that table has statistics, then named
   * (src/db/statistics-gate.ts).
   */
  planEachCall?: boolean | { untilAnalyzed: string };
  /**
   * The caller reads nothing back (an insert of `insertRows`): inside a PostgreSQL transaction
   * the write may be held and sent with the transaction's next statement (src/db/pg-driver.ts).
   */
  writeBehind?: boolean;
}

/** `build(db, v)` builds the query with `v(name)` where each value goes. */
export function prepared<V extends Record<string, unknown>, R>(
  build: (db: Executor, v: <K extends keyof V & string>(name: K) => V[K]) => Compilable<R>,
  options: PreparedOptions = {},
): PreparedQuery<V, R> {
  return compiledOnce(build, options, byName);
}

/** `prepared`, with the code that reads a slot's value from what the caller passes. */
function compiledOnce<V, R>(build: (db: Executor, v: (name: string) => any) => Compilable<R>, options: PreparedOptions, access: (slot: string) => string): PreparedQuery<V, R> {
  // By the dialect's adapter class: SQLite and PostgreSQL compile the same query differently.
  const templates = new Map<unknown, Template>();
  // `planEachCall: { untilAnalyzed }`: the table whose statistics open the gate.
  const gate = typeof options.planEachCall === 'object' ? options.planEachCall.untilAnalyzed : undefined;
  if (gate !== undefined) watchStatistics(gate);
  const template = (db: Executor): Template => {
    const dialect = db.getExecutor().adapter.constructor;
    let found = templates.get(dialect);
    if (!found) {
      const compiled = build(db, (name: string) => MARK + name).compile();
      const parameters = compiled.parameters.map((p): Parameter => (typeof p === 'string' && p.startsWith(MARK) ? { slot: p.slice(MARK.length) } : { constant: p }));
      found = {
        sql: compiled.sql,
        unnamedSql: dialect === PostgresAdapter && gate !== undefined ? compiled.sql + PLANNED_PER_CALL : undefined,
        fill: fillerOf(parameters, access),
        holdWrite: options.writeBehind === true && dialect === PostgresAdapter,
      };
      templates.set(dialect, found);
      // PostgreSQL sends it as a named statement from now on (src/db/named-statements.ts).
      if (dialect === PostgresAdapter && options.planEachCall !== true) nameStatement(compiled.sql);
    }
    return found;
  };
  const run = (db: Executor, sql: string, filled: unknown[], hold: boolean): Promise<QueryResult<R>> => {
    const query = CompiledQuery.raw(sql, filled) as CompiledQuery<R>;
    return db.executeQuery<R>(hold ? writeBehind(query) : query);
  };
  const execute = (db: Executor, values: V): Promise<QueryResult<R>> => {
    const { sql, unnamedSql, fill, holdWrite } = template(db);
    const filled = fill(values);
    if (unnamedSql === undefined) return run(db, sql, filled, holdWrite);
    const ready = hasStatistics(db, gate!);
    if (typeof ready === 'boolean') return run(db, ready ? sql : unnamedSql, filled, holdWrite);
    return ready.then((open) => run(db, open ? sql : unnamedSql, filled, holdWrite));
  };
  const ahead = (db: Executor, values: V): AheadRead<R> => {
    const { sql, unnamedSql, fill } = template(db);
    // Asked at once, in the caller's order: a gate's catalog read would come between.
    if (unnamedSql !== undefined) throw new Error('prepared: a statement behind a statistics gate is not read ahead');
    return readAhead<R>(db, CompiledQuery.raw(sql, fill(values)) as CompiledQuery<R>);
  };
  return {
    execute,
    first: async (db, values) => (await execute(db, values)).rows[0],
    readAhead: ahead,
    firstAhead: (db, values) => {
      const read = ahead(db, values);
      return { queued: read.queued, read: async () => (await read.read()).rows[0] };
    },
  };
}

/**
 * Inserts rows into `table` with a statement prepared per table, column set and row count
 * (the shapes a caller uses are few: a payment's row, one or n receivables). A column whose
 * value is undefined is left out, as Kysely's own insert does.
 */
// By table, the shapes (row count and column list) in use. Looked up by comparing the column
// names one by one: a key string of the ~40 names, built and hashed on every call, cost more.
const inserts = new Map<string, { count: number; columns: string[]; query: PreparedQuery<readonly object[], unknown> }[]>();

function sameColumns(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// Slot `3.amount` is rows[3].amount.
const byRowAndColumn = (slot: string) => {
  const dot = slot.indexOf('.');
  return `s[${slot.slice(0, dot)}][${JSON.stringify(slot.slice(dot + 1))}]`;
};

function definedColumns(row: object): string[] {
  const columns: string[] = [];
  for (const column in row) if ((row as Record<string, unknown>)[column] !== undefined) columns.push(column);
  return columns;
}

function hasShape(row: object, columns: string[]): boolean {
  return definedColumns(row).length === columns.length && columns.every((c) => (row as Record<string, unknown>)[c] !== undefined);
}

export async function insertRows<T extends keyof DB & string>(db: Executor, table: T, rows: readonly Insertable<DB[T]>[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = definedColumns(rows[0]);
  // Rows of different shapes: Kysely's insert (it fills the gaps with DEFAULT on PostgreSQL, NULL on SQLite).
  if (rows.length > 1 && !rows.every((row) => hasShape(row, columns))) return void (await db.insertInto(table).values(rows as never).execute());
  let shapes = inserts.get(table);
  if (!shapes) inserts.set(table, (shapes = []));
  let shape = shapes.find((s) => s.count === rows.length && sameColumns(s.columns, columns));
  if (!shape) {
    const build = (qb: Executor, v: (name: string) => unknown) => qb.insertInto(table).values(rows.map((_, i) => Object.fromEntries(columns.map((c) => [c, v(`${i}.${c}`)]))) as never);
    shape = { count: rows.length, columns, query: compiledOnce(build, { writeBehind: true }, byRowAndColumn) };
    shapes.push(shape);
  }
  await shape.query.execute(db, rows);
}
