/**
 * Every column of a table, listed by name, for a statement that reads whole rows. Why not
 * `select *`: a statement whose result type is `*` cannot be sent named on PostgreSQL (a column a
 * migration adds would change a prepared statement's result type under a running instance, see
 * src/db/named-statements.ts), so it would be parsed and planned on every call; a listed one is
 * planned once per connection. The type check makes the list whole: a column left out of it (or
 * added to the table's type later) fails the build.
 */
export function allColumns<T>() {
  return <const C extends readonly (keyof T & string)[]>(columns: C & ([Exclude<keyof T, C[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, C[number]> })): C => columns;
}
