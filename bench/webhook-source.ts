/**
 * The steady phase of bench/webhooks.ts, in a child process: a whole gateway process (context
 * and worker, as ROLE=worker runs them) on the bench database that also writes COUNT events at
 * RATE per second, one per transaction, through the outbox function every producer uses. The
 * events are written in the process that delivers them, as payments would be (a second process
 * writing the same SQLite file would collide with it), and the receiver stays in the parent.
 */
import { loadConfig } from '../src/config.js';
import { closeContext, createContext } from '../src/root/context.js';
import { createLogger } from '../src/logger.js';
import { recordNotifications } from '../src/modules/webhooks/outbox.js';

const count = Number(process.env.COUNT);
const rate = Number(process.env.RATE);
const account = { merchantId: String(process.env.MERCHANT_ID), accountNumber: Number(process.env.ACCOUNT_NUMBER) };

async function main() {
  const ctx = await createContext(loadConfig(), { logger: createLogger('warn') });
  ctx.worker.start();
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    // Hold the pace: event i is due at started + i / rate.
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const at = ctx.clock.now().toISOString();
    await ctx.database.db.transaction().execute((trx) =>
      recordNotifications(trx, ctx.queue, [{ ...account, type: 'TransactionStatus', nsu: `steady-${i}`, codAuth: 'BENCH1', installmentNumber: 0, oldValue: '', newValue: 'Authorized', at }]),
    );
  }
  process.stdout.write(`produced ${(count / ((performance.now() - started) / 1000)).toFixed(0)}\n`);
  // Deliver what is left, then stop when the parent says so.
  process.on('SIGTERM', async () => {
    await closeContext(ctx);
    process.exit(0);
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
