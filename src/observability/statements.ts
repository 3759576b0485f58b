import type { LogEvent } from 'kysely';

const VERBS = ['select', 'insert', 'update', 'delete', 'with', 'begin', 'commit', 'rollback'] as const;
export type StatementVerb = (typeof VERBS)[number] | 'other';

/**
 * Counts the statements this process sends, by their first word, through Kysely's `log` option
 * (the query layer's public hook): `gateway_db_statements_total` on /metrics, and what the
 * benchmarks divide by the payments they made. BEGIN and COMMIT are counted where the driver
 * sends them as statements (PostgreSQL).
 */
export class StatementCounter {
  readonly counts = new Map<StatementVerb, number>([...VERBS, 'other'].map((verb) => [verb as StatementVerb, 0]));

  /** Kysely's `log` option. */
  readonly log = (event: LogEvent): void => {
    if (event.level !== 'query') return;
    const verb = verbOf(event.query.sql);
    this.counts.set(verb, this.counts.get(verb)! + 1);
  };
}

function verbOf(sql: string): StatementVerb {
  const word = /^\s*([a-z]+)/i.exec(sql)?.[1].toLowerCase();
  return (VERBS as readonly string[]).includes(word ?? '') ? (word as StatementVerb) : 'other';
}
