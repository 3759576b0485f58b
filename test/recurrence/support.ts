import { expect } from 'vitest';
import type { TestApp, TestMerchant } from '../support/harness.js';

/** Recurrence helpers that go through HTTP like an integrator (and the operator's sandbox). */
export const R = '/gateway/v1/recurrences';
export const DAY_MS = 86_400_000;

export const monthly = (overrides: Record<string, unknown> = {}) => ({
  name: 'Gold',
  description: 'Gold plan',
  amount: 12.6,
  planType: 'Monthly',
  paymentMethod: 'CreditCard',
  ...overrides,
});

export function recurrence(t: TestApp, m: TestMerchant) {
  const post = (url: string, payload?: object, headers = m.headers) => t.inject({ method: 'POST', url, headers, ...(payload ? { payload } : {}) });
  const get = (url: string, headers = m.headers) => t.inject({ method: 'GET', url, headers });
  const api = {
    post,
    get,
    async plan(body: Record<string, unknown> = {}): Promise<string> {
      const res = await post(`${R}/plans`, monthly(body));
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    },
    async subscribe(planId: string, vaultId: string, orderNumber = 'ORD-1'): Promise<string> {
      const res = await post(`${R}/subscriptions`, { planId, vaultId, orderNumber });
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    },
    /** Every billing of this merchant, oldest due first (tests use one merchant per subscription). */
    async billings(query = ''): Promise<any[]> {
      const order = query.includes('orderBy=') ? '' : '&orderBy=expireAt:asc';
      const res = await get(`${R}/billing?limit=100${order}${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().items;
    },
    async billing(billingId: string): Promise<any> {
      const res = await get(`${R}/billing/${billingId}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    },
    async subscription(subscriptionId: string): Promise<any> {
      const res = await get(`${R}/subscriptions/${subscriptionId}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    },
    /** The payments a billing made, straight from the table (conciliation counts these). */
    async payments(billingId: string) {
      return t.ctx.database.db.selectFrom('payments').select(['payment_id', 'status', 'amount', 'return_code']).where('billing_id', '=', billingId).orderBy('created_at').execute();
    },
    async paymentsOfMerchant() {
      return t.ctx.database.db.selectFrom('payments').select(['payment_id', 'billing_id', 'status', 'amount']).where('merchant_id', '=', m.merchantId).orderBy('created_at').execute();
    },
  };
  return api;
}

/** The sandbox clock, moved by the operator: it runs every job due on the way. */
export function clock(t: TestApp) {
  const advance = async (payload: object) => {
    const res = await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { now: string; jobsRun: number };
  };
  return {
    now: () => t.ctx.clock.now(),
    to: (at: Date | string) => advance({ to: typeof at === 'string' ? at : at.toISOString() }),
    days: (days: number) => advance({ days }),
    /** Runs what is due now without moving the clock. */
    runDue: () => advance({ minutes: 0 }),
    /** The next 1 January, 00:00 UTC, after the clock: a due date the seed's example can be read against. */
    nextNewYear(): Date {
      return new Date(Date.UTC(t.ctx.clock.now().getUTCFullYear() + 1, 0, 1));
    },
  };
}

export const addDays = (at: Date | string, days: number) => new Date(new Date(at).getTime() + days * DAY_MS);
export const iso = (at: Date) => at.toISOString();

/** Forces what the sandbox acquirer answers for a stored card (null: back to its card number). */
export async function outcome(t: TestApp, vaultId: string, returnCode: string | null): Promise<void> {
  const res = await t.inject({ method: 'POST', url: `/sandbox/vaults/${vaultId}/outcome`, headers: t.adminHeaders, payload: { returnCode } });
  expect(res.statusCode, res.body).toBe(200);
}

/** Lifts the anti-fraud velocity limits for merchants whose one card pays many times at once. */
export async function liftVelocity(t: TestApp, m: TestMerchant): Promise<void> {
  const res = await t.inject({
    method: 'PUT',
    url: `/admin/merchants/${m.merchantId}/antifraud`,
    headers: t.adminHeaders,
    payload: { velocity: { maxPerCard: 1_000_000, maxPerDocument: 1_000_000, maxPerIp: 1_000_000 } },
  });
  expect(res.statusCode, res.body).toBe(200);
}
