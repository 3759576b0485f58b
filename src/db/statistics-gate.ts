import { sql } from 'kysely';
import type { Executor } from './connection.js';

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
 */
const CHECK_EVERY = 1000;

interface Gate {
  open: boolean;
  untilCheck: number;
}

const gates = new Map<string, Gate>();

/** Known at once (a boolean) except when it asks the database. */
export function hasStatistics(db: Executor, table: string): boolean | Promise<boolean> {
  let gate = gates.get(table);
  if (!gate) gates.set(table, (gate = { open: false, untilCheck: 0 }));
  if (gate.open) return true;
  if (gate.untilCheck-- > 0) return false;
  gate.untilCheck = CHECK_EVERY - 1;
  const known = gate;
  return sql<{ ready: boolean }>`select exists (select 1 from pg_stats where schemaname = current_schema() and tablename = ${table}) as ready`
    .execute(db)
    .then(({ rows }) => (known.open = rows[0]?.ready === true));
}

/** Tests: forget what the gates learnt. */
export function resetStatisticsGates(): void {
  gates.clear();
}
