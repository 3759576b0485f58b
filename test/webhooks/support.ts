import { expect } from 'vitest';
import type { AppContext } from '../../src/root/context.js';
import { recordNotifications, type AccountEvent } from '../../src/modules/webhooks/outbox.js';
import type { TestApp, TestMerchant } from '../support/harness.js';

export const WEBHOOKS = '/integration/api/webhooks';

/** A merchant with both tokens (gateway for payments, integration for webhooks) and lifted velocity limits. */
export { settlementMerchant as webhookMerchant } from '../settlement/support.js';

type IntegrationMerchant = TestMerchant & { integration: Record<string, string> };

export function subscribe(t: TestApp, m: IntegrationMerchant, payload: object, accountNumber: unknown = m.accountNumber) {
  return t.inject({ method: 'POST', url: `${WEBHOOKS}/subscriptions?accountNumber=${accountNumber}`, headers: m.integration, payload });
}

/** Subscribes and answers the signing secret. */
export async function subscribed(t: TestApp, m: IntegrationMerchant, url: string, basicAuth?: string): Promise<string> {
  const res = await subscribe(t, m, basicAuth === undefined ? { url } : { url, basicAuth });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().secret;
}

export async function deliveries(t: TestApp, m: IntegrationMerchant, query: Record<string, string | number> = {}): Promise<any[]> {
  const res = await deliveriesRaw(t, m, { limit: 100, orderBy: 'movementId:asc', ...query });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().items;
}

export function deliveriesRaw(t: TestApp, m: IntegrationMerchant, query: Record<string, string | number> = {}) {
  const qs = new URLSearchParams(Object.entries({ accountNumber: m.accountNumber, ...query }).map(([k, v]): [string, string] => [k, String(v)]));
  return t.inject({ method: 'GET', url: `${WEBHOOKS}/deliveries?${qs}`, headers: m.integration });
}

/** Moves the sandbox clock (running every job due on the way, webhook attempts included). */
export async function advance(t: TestApp, by: { days?: number; hours?: number; minutes?: number }): Promise<void> {
  const res = await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: by });
  expect(res.statusCode, res.body).toBe(200);
}

/** Runs what is due now (deliveries are due the moment their event is written). */
export const runDue = (t: TestApp) => advance(t, { minutes: 0 });

export const basic = (user: string, password: string) => Buffer.from(`${user}:${password}`).toString('base64');

/**
 * `count` TransactionStatus events of one account, written in one transaction the way every
 * producer writes them (recordNotifications): a test decides exactly how many notifications exist.
 */
export async function emitEvents(ctx: AppContext, m: { merchantId: string; accountNumber: number }, count: number, nsuPrefix = `${m.accountNumber}-`): Promise<void> {
  const at = ctx.clock.now().toISOString();
  const events: AccountEvent[] = Array.from({ length: count }, (_, i) => ({
    merchantId: m.merchantId,
    accountNumber: m.accountNumber,
    type: 'TransactionStatus',
    nsu: `${nsuPrefix}${i}`,
    codAuth: 'ABC123',
    installmentNumber: 0,
    oldValue: '',
    newValue: 'Authorized',
    at,
  }));
  await ctx.database.db.transaction().execute((trx) => recordNotifications(trx, ctx.queue, events));
}

/** Polls `done` every 20 ms until it holds; fails naming `what` after `ms`. */
export async function until(what: string, done: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
