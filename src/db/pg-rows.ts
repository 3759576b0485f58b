import type pg from 'pg';

/**
 * A query's rows as arrays of column values (node-postgres's `rowMode: 'array'`), for the
 * streamed range searches and bank slip listings: no object with named keys is built per row,
 * and the caller reads each column by position. Values are typed by the pool's parsers
 * (src/db/postgres.ts: int8 as numbers): the row Kysely would read, as an array.
 */
export async function arrayRows(pool: pg.Pool, text: string, parameters: readonly unknown[]): Promise<unknown[][]> {
  return (await pool.query({ text, values: [...parameters], rowMode: 'array' })).rows;
}
