import { sql, type Kysely } from 'kysely';
import type { Executor } from './connection.js';
import type { DB } from './schema.js';

/**
 * PostgreSQL: has `table` planner statistics yet (has ANALYZE, or autovacuum's analyze, run on
 * it)? A statement whose best index depends on them is planned on every call until then, and
 * sent named (planned once per connection) after (src/db/prepared.ts, `planEachCall`).
 *
 * Why: a named statement's generic plan is chosen at its sixth run and kept until the table's
 * statistics change. Chosen on a table that was never analyzed and holds a few hundred rows,
 * every index costs the same one page, and the anti-fraud velocity counts got an index that
 * reads the merchant's whole window: 5-6 ms a payment instead of 0.15 ms (docs/performance.md,
 * issue 15). Once the table has statistics, each later autovacuum analyze invalidates the plan
 * and the next run chooses again with the new ones, so the plan follows the table's growth.
 *
 * While closed, the gate asks again every CHECK_EVERY calls (one small catalog read). Once
 * open it stays open for the process.
 *
 * The statistics themselves come from the StatisticsKeeper below rather than autovacuum alone:
 * autovacuum's first analyze of a new table comes up to a minute (autovacuum_naptime) after
 * the table fills, and every statement planned per call until then costs the database its
 * planning (13 % of PostgreSQL's CPU in a billing run).
 */
const CHECK_EVERY = 1000;

interface Gate {
  open: boolean;
  untilCheck: number;
}

const gates = new Map<string, Gate>();

/** The tables some gate waits on (`prepared`'s `untilAnalyzed`), for the keeper. */
const watched = new Set<string>();

export function watchStatistics(table: string): void {
  watched.add(table);
}

/** True once `table`, in the connection's schema, has planner statistics: the gate's and the keeper's one test. */
const analyzed = (table: string) => sql<boolean>`exists (select 1 from pg_stats where schemaname = current_schema() and tablename = ${table})`;

/** Known at once (a boolean) except when it asks the database. */
export function hasStatistics(db: Executor, table: string): boolean | Promise<boolean> {
  let gate = gates.get(table);
  if (!gate) gates.set(table, (gate = { open: false, untilCheck: 0 }));
  if (gate.open) return true;
  if (gate.untilCheck-- > 0) return false;
  gate.untilCheck = CHECK_EVERY - 1;
  const known = gate;
  return sql<{ ready: boolean }>`select ${analyzed(table)} as ready`
    .execute(db)
    .then(({ rows }) => (known.open = rows[0]?.ready === true));
}

/** Tests: forget what the gates learnt. */
export function resetStatisticsGates(): void {
  gates.clear();
}

/** Rows a watched table must hold before the keeper analyzes it: statistics of a handful of rows would mislead the planner as much as none. */
export const KEEPER_MIN_ROWS = 1000;

export interface StatisticsKeeper {
  /** One pass (the timer's work): analyzes each watched table that has no statistics and holds KEEPER_MIN_ROWS rows. */
  pass(): Promise<void>;
  stop(): void;
}

/**
 * PostgreSQL: gives each watched table its first statistics once it holds KEEPER_MIN_ROWS rows
 * (ANALYZE, as autovacuum would a little later), checking every `intervalMs`; after that
 * autovacuum keeps them. It runs on its own pooled connection, never inside a request's
 * transaction, and a table it has seen analyzed is not asked about again. ANALYZE needs the
 * table's owner: the role that runs the migrations, as the gateway's own role is.
 */
export function startStatisticsKeeper(db: Kysely<DB>, intervalMs = 5000): StatisticsKeeper {
  const done = new Set<string>();
  let running: Promise<void> | undefined;
  const passOnce = async () => {
    for (const table of watched) {
      if (done.has(table)) continue;
      const { rows } = await sql<{ analyzed: boolean; filled: boolean }>`select
          ${analyzed(table)} as analyzed,
          (select count(*) from (select 1 from ${sql.table(table)} limit ${KEEPER_MIN_ROWS}) as t) >= ${KEEPER_MIN_ROWS} as filled`.execute(db);
      if (rows[0].analyzed) done.add(table);
      else if (rows[0].filled) {
        try {
          await sql`analyze ${sql.table(table)}`.execute(db);
        } catch (error) {
          // Not the table's owner: autovacuum's analyze will come instead. Anything else (the
          // database unreachable) is tried again at the next pass.
          if ((error as { code?: string }).code !== '42501') throw error;
        }
        done.add(table);
      }
    }
  };
  const pass = () => (running ??= passOnce().finally(() => (running = undefined)));
  // A failed pass (the database unreachable) is simply tried again at the next tick.
  const timer = setInterval(() => void pass().catch(() => {}), intervalMs);
  timer.unref();
  return { pass, stop: () => clearInterval(timer) };
}
