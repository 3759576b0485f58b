/**
 * The pages of a keyset read (the streamed range searches and bank slip listings):
 * `read(after)` answers up to `limit` rows after a key, `keyOf` gives a row's key. Each page is a
 * read of its own, never one long transaction: a slow client holds no snapshot.
 *
 * With `prefetchNext` (PostgreSQL: the database is another process, on another core) the next page
 * is asked for as soon as this one's last key is known, so the server reads it while this one
 * is serialized and written; SQLite reads in this thread, where there is nothing to overlap and
 * a page prefetched would only be one more page held. A page prefetched and then left unread
 * (the consumer stopped: the client went away) is dropped, its failure included.
 */
export async function* keysetPages<Row, Key>(
  read: (after: Key | undefined) => Promise<Row[]>,
  keyOf: (row: Row) => Key,
  limit: number,
  prefetchNext: boolean,
): AsyncGenerator<Row[]> {
  const start = (after: Key | undefined) => {
    const reading = read(after);
    reading.catch(() => {});
    return reading;
  };
  let next = start(undefined);
  for (;;) {
    const rows = await next;
    const more = rows.length === limit;
    if (more && prefetchNext) next = start(keyOf(rows[rows.length - 1]));
    if (rows.length > 0) yield rows;
    if (!more) return;
    if (!prefetchNext) next = start(keyOf(rows[rows.length - 1]));
  }
}
