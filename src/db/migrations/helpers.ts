import { PostgresAdapter, type Kysely } from 'kysely';

/** Migrations branch on the engine only where they must (identity columns, partial indexes). */
export function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
