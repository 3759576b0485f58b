import { Socket } from 'node:net';

/**
 * Socket writes to PostgreSQL (port 5432) while `work` runs: one per round trip, since the
 * driver sends each round trip's statements in one write (src/db/pg-driver.ts).
 */
export async function pgFlightsOf(work: () => Promise<unknown>): Promise<number> {
  const socket = Socket.prototype as unknown as Record<'_write' | '_writev', (...a: unknown[]) => unknown>;
  const write = socket._write;
  const writev = socket._writev;
  let flights = 0;
  socket._write = function (this: Socket, ...args: unknown[]) {
    if (this.remotePort === 5432) flights += 1;
    return write.apply(this, args);
  };
  socket._writev = function (this: Socket, ...args: unknown[]) {
    if (this.remotePort === 5432) flights += 1;
    return writev.apply(this, args);
  };
  try {
    await work();
  } finally {
    socket._write = write;
    socket._writev = writev;
  }
  return flights;
}
