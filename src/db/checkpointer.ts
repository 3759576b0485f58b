import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints on a thread of their own (SQLite file databases).
 *
 * In WAL mode a commit appends to the log without syncing; a checkpoint copies the log back into
 * the database file and syncs both. Left to SQLite (wal_autocheckpoint), the checkpoint runs inside
 * whichever commit crosses the threshold: on the event loop, for as long as copying the log and
 * syncing two files take (tens of milliseconds), so every request in flight waits for it, and those
 * few commits outweigh all the others together. Here a worker thread with its own connection runs a
 * PASSIVE checkpoint every `intervalMs`: it never blocks a writer (WAL lets the log be copied while
 * commits append to it) and its fsyncs wait off the event loop. The main connection keeps a far
 * larger autocheckpoint as a backstop, so the log stays bounded even if this thread dies.
 *
 * The worker is plain CommonJS evaluated from a string: it runs the same under tsx, the test
 * runner and the compiled build, with no file of its own to resolve.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 0');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    // SQLITE_BUSY (another checkpoint is running) and the like: the next tick tries again.
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  try { db.close(); } catch (error) {}
  parentPort.postMessage('stopped');
  parentPort.close();
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(path: string, intervalMs = 100): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path, intervalMs } });
  // A thread that only checkpoints must not keep the process alive.
  worker.unref();
  worker.on('error', () => {
    // The backstop autocheckpoint of the main connection keeps the log bounded without it.
  });
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        const done = () => resolve();
        worker.once('exit', done);
        worker.once('message', () => void worker.terminate().then(done, done));
        worker.postMessage('stop');
        // Never wait long on a thread that is gone or stuck in a checkpoint's fsync.
        setTimeout(() => void worker.terminate().then(done, done), 2000).unref();
      });
      return stopped;
    },
  };
}
