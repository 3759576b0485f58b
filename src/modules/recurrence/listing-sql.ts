import { sql, type RawBuilder } from 'kysely';

/**
 * Case-insensitive "contains" for the name filters, the same on both engines: SQLite's LIKE
 * ignores ASCII case and PostgreSQL's does not, so both sides are lowered; the user's `%`,
 * `_` and `\` match themselves.
 */
export function containsIgnoreCase(column: string, text: string): RawBuilder<boolean> {
  const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}
