import type { PostgresPool } from './postgres.js';

/**
 * A query's rows as arrays of column values (postgres.js's `.values()`), for the streamed range
 * searches and bank slip listings: no object with named keys is built per row, and the caller
 * reads each column by position. Values are typed by the connection's parsers (src/db/postgres.ts:
 * int4 and int8 as numbers, text as strings): the row Kysely would read, as an array. The
 * connection comes from the pool's `reserve`, with its timeouts.
 *
 * postgres.js also streams `COPY ... TO STDOUT`, but a COPY that fails within its first packet
 * destroys the stream before a caller can listen to it (an uncaught error): not used.
 */
export async function arrayRows(pool: Pick<PostgresPool, 'reserve'>, query: string, parameters: readonly unknown[]): Promise<unknown[][]> {
  const connection = await pool.reserve();
  try {
    return await connection.values(query, [...parameters]);
  } finally {
    connection.release();
  }
}
