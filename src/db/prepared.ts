import { CompiledQuery, PostgresAdapter, type Compilable, type Insertable, type QueryResult } from 'kysely';
import type { Executor } from './connection.js';
import { nameStatement } from './named-statements.js';
import { hasStatistics } from './statistics-gate.js';
import { writeBehind } from './pg-driver.js';
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

interface Template {
  sql: string;
  /** PostgreSQL, `planEachCall: { untilAnalyzed }`: the same statement, sent unnamed (another text). */
  unnamedSql?: string;
  parameters: Parameter[];
}

// Appended to the text of the unnamed variant: named statements are looked up by their text.
const PLANNED_PER_CALL = ' /* planned per call */';

export interface PreparedQuery<V, R> {
  /** Runs the query on `db` (the database or a transaction) with these values. */
  execute(db: Executor, values: V): Promise<QueryResult<R>>;
  /** The first row, or undefined. */
  first(db: Executor, values: V): Promise<R | undefined>;
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
  // By the dialect's adapter class: SQLite and PostgreSQL compile the same query differently.
  const templates = new Map<unknown, Template>();
  // `planEachCall: { untilAnalyzed }`: the table whose statistics open the gate.
  const gate = typeof options.planEachCall === 'object' ? options.planEachCall.untilAnalyzed : undefined;
  const template = (db: Executor): Template => {
    const dialect = db.getExecutor().adapter.constructor;
    let found = templates.get(dialect);
    if (!found) {
      const compiled = build(db, ((name: string) => MARK + name) as never).compile();
      found = {
        sql: compiled.sql,
        unnamedSql: dialect === PostgresAdapter && gate !== undefined ? compiled.sql + PLANNED_PER_CALL : undefined,
        parameters: compiled.parameters.map((p): Parameter => (typeof p === 'string' && p.startsWith(MARK) ? { slot: p.slice(MARK.length) } : { constant: p })),
      };
      templates.set(dialect, found);
      // PostgreSQL sends it as a named statement from now on (src/db/named-statements.ts).
      if (dialect === PostgresAdapter && options.planEachCall !== true) nameStatement(compiled.sql);
    }
    return found;
  };
  const run = (db: Executor, sql: string, parameters: Parameter[], values: V): Promise<QueryResult<R>> => {
    const filled = parameters.map((p) => {
      if (!('slot' in p)) return p.constant;
      const value = values[p.slot];
      if (value === undefined) throw new Error(`prepared query: no value for "${p.slot}"`);
      return value;
    });
    const query = CompiledQuery.raw(sql, filled);
    return db.executeQuery<R>(options.writeBehind ? writeBehind(query) : query);
  };
  const execute = (db: Executor, values: V): Promise<QueryResult<R>> => {
    const { sql, unnamedSql, parameters } = template(db);
    if (unnamedSql === undefined) return run(db, sql, parameters, values);
    const ready = hasStatistics(db, gate!);
    if (typeof ready === 'boolean') return run(db, ready ? sql : unnamedSql, parameters, values);
    return ready.then((open) => run(db, open ? sql : unnamedSql, parameters, values));
  };
  return {
    execute,
    first: async (db, values) => (await execute(db, values)).rows[0],
  };
}

/**
 * Inserts rows into `table` with a statement prepared per table, column set and row count
 * (the shapes a caller uses are few: a payment's row, one or n receivables). A column whose
 * value is undefined is left out, as Kysely's own insert does.
 */
const inserts = new Map<string, PreparedQuery<Record<string, unknown>, unknown>>();

export async function insertRows<T extends keyof DB & string>(db: Executor, table: T, rows: readonly Insertable<DB[T]>[]): Promise<void> {
  if (rows.length === 0) return;
  const defined = (row: object) => Object.keys(row).filter((k) => (row as Record<string, unknown>)[k] !== undefined);
  const columns = defined(rows[0]);
  const shape = columns.join(',');
  // Rows of different shapes: Kysely's insert (it fills the gaps with DEFAULT).
  if (rows.some((row) => defined(row).join(',') !== shape)) return void (await db.insertInto(table).values(rows as never).execute());
  const key = `${table}|${rows.length}|${columns.join(',')}`;
  let query = inserts.get(key);
  if (!query) {
    query = prepared((qb, v) => qb.insertInto(table).values(rows.map((_, i) => Object.fromEntries(columns.map((c) => [c, v(`${i}.${c}`)]))) as never), { writeBehind: true });
    inserts.set(key, query);
  }
  const values: Record<string, unknown> = {};
  rows.forEach((row, i) => {
    for (const c of columns) values[`${i}.${c}`] = (row as Record<string, unknown>)[c];
  });
  await query.execute(db, values);
}
