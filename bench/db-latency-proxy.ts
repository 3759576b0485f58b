/**
 * A TCP proxy that delays every chunk by a fixed time in each direction: a database on another
 * host, for the payment benchmark's latency figures (a round trip to a database one network hop
 * away costs ~0.2-1 ms; on loopback it costs almost nothing, which hides the round trips).
 *
 *   npx tsx bench/db-latency-proxy.ts 6432 127.0.0.1:5432 0.5     # listen, target, one-way ms
 *   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:6432/postgres BENCH_CONNECTIONS=1 \
 *     npx tsx bench/payments.ts postgres vault 15
 *
 * Chunks keep their order (one delay for all, timers fire in the order they were set). The
 * proxy's own CPU shares the machine: use it for latency at low concurrency, not throughput.
 */
import { createServer, connect, type Socket } from 'node:net';

const [listenPort, target = '127.0.0.1:5432', oneWayMs = '0.5'] = process.argv.slice(2);
const [host, port] = target.split(':');
const delay = Number(oneWayMs);

function delayed(from: Socket, to: Socket): void {
  from.on('data', (chunk) => setTimeout(() => to.write(chunk), delay));
  from.on('end', () => setTimeout(() => to.end(), delay));
  from.on('error', () => to.destroy());
}

createServer((client) => {
  client.setNoDelay(true);
  const server = connect({ host, port: Number(port) });
  server.setNoDelay(true);
  delayed(client, server);
  delayed(server, client);
}).listen(Number(listenPort), '127.0.0.1', () => console.log(`proxy 127.0.0.1:${listenPort} -> ${target}, ${delay} ms each way`));
