import type { AddressInfo } from 'node:net';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';

/**
 * The whole gateway on a fresh database (SQLite in memory, or a PostgreSQL schema), listening
 * on 127.0.0.1 on a port of its own with its worker running, as `npm start` runs it: the SDK and
 * the CLI reach it over real HTTP, and webhooks are delivered by the worker.
 */
export interface RunningGateway {
  t: TestApp;
  baseUrl: string;
  merchant: TestMerchant;
  close(): Promise<void>;
}

export async function runningGateway(env: Record<string, string> = {}): Promise<RunningGateway> {
  const t = await testApp({ env: { WORKER_POLL_MS: '50', ...env } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  t.ctx.worker.start();
  t.ctx.payments.startBackground({ recovery: true });
  const merchant = await t.merchant();
  const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  return { t, baseUrl, merchant, close: () => t.close() };
}

export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
