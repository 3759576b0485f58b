/**
 * WAL checkpoints on a thread of their own (a SQLite file database; started by connection.ts).
 *
 * In WAL mode a commit appends to the log without syncing; a checkpoint copies the log back into
 * the database file and syncs both. Left to SQLite (wal_autocheckpoint), the checkpoint runs inside
 * whichever commit crosses the threshold, on the event loop, for as long as copying the log and
 * syncing two files take (tens of milliseconds), and every request in flight waits for it. Here the
 * thread's own connection runs a PASSIVE checkpoint every `intervalMs`: it never blocks a writer
 * (WAL lets the log be copied while commits append to it) and its fsyncs wait off the event loop.
 * The main connection keeps a far larger autocheckpoint as a backstop, should this thread die.
 * Stopping terminates the thread; better-sqlite3 closes its connection as the thread ends.
 */
import { workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

const { path, intervalMs } = workerData as { path: string; intervalMs: number };
const db = new SQLite(path, { fileMustExist: true });
db.pragma('busy_timeout = 0');
setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // SQLITE_BUSY (another checkpoint is running) and the like: the next tick tries again.
  }
}, intervalMs);
