/**
 * PostgreSQL: the hot statements (those built once by `prepared()`, src/db/prepared.ts) are sent
 * as named prepared statements, so each connection parses and plans them once instead of on
 * every call. Measured on the payment path's statements (docs/performance.md, issue 15): parse
 * and plan were most of the database server's CPU per payment; naming them took a replay of a
 * payment's statements from ~950 to ~1,700 a second on the same machine.
 *
 * Left unnamed, so they are parsed afresh as before:
 * - statements that select `*` or `t.*` (or return `*`): a named statement's result type is
 *   fixed when it is prepared, and a column added by a migration while an instance runs would
 *   fail it ("cached plan must not change result type") until the connection is replaced;
 * - anything beyond the first MAX_NAMES texts (each name lives in every pooled connection).
 *
 * DB_NAMED_STATEMENTS=false sends everything unnamed (src/db/connection.ts picks the client).
 * A connection that is replaced (a restart, a failover) simply prepares again on first use:
 * node-postgres keeps the names it prepared per connection.
 */
const MAX_NAMES = 256;

const names = new Map<string, string>();

const selectsAll = /(?:select|returning)\s+(?:[\w"]+\.)?\*|,\s*(?:"\w+"\.)?\*/i;

/** Registers a statement built once (PostgreSQL text): later runs of the same text use its name. */
export function nameStatement(text: string): void {
  if (names.has(text) || names.size >= MAX_NAMES || selectsAll.test(text)) return;
  names.set(text, `gw${names.size + 1}`);
}

/** The name to send a statement under, or undefined to send it unnamed. */
export function statementName(text: string): string | undefined {
  return names.get(text);
}
