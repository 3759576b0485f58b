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

/**
 * `count` independent reads (pages whose bounds are known up front), answered in order with up
 * to `inFlight` asked at once: several reader threads work on the next pages while this one is
 * written, and no more than `inFlight` pages are ever held. Reads asked and then left unread
 * (the consumer stopped) are dropped, their failures included.
 */
export async function* orderedReads<T>(count: number, read: (index: number) => Promise<T>, inFlight: number): AsyncGenerator<T> {
  const asked: Promise<T>[] = [];
  const ask = (index: number) => {
    const reading = read(index);
    reading.catch(() => {});
    asked.push(reading);
  };
  let next = 0;
  while (next < count && next < inFlight) ask(next++);
  for (let i = 0; i < count; i++) {
    const page = await asked[i];
    delete asked[i];
    if (next < count) ask(next++);
    yield page;
  }
}
