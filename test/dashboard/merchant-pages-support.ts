import { expect } from 'vitest';
import type { TestApp, TestMerchant } from '../support/harness.js';
import { vault } from '../support/cards.js';

/** Data for the merchant pages' tests, made through the APIs like an integrator would. */
export type FullMerchant = TestMerchant & { integration: Record<string, string> };

/** A merchant with a gateway token (m.headers) and an integration token (m.integration). */
export async function fullMerchant(t: TestApp): Promise<FullMerchant> {
  const m = await t.merchant();
  const login = await t.inject({ method: 'POST', url: '/integration/api/authentication/login', payload: { userName: m.userName, password: m.password } });
  expect(login.statusCode, login.body).toBe(200);
  return { ...m, integration: { authorization: `Bearer ${login.json().accessToken}` } };
}

export async function api(t: TestApp, method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string>, payload?: object) {
  return t.inject({ method, url, headers, ...(payload ? { payload } : {}) });
}

/** Moves the sandbox clock (running every job due on the way). */
export async function advance(t: TestApp, by: { days?: number; minutes?: number; to?: string }): Promise<void> {
  const res = await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: by });
  expect(res.statusCode, res.body).toBe(200);
}

/** Forces what the sandbox acquirer answers for a stored card (null: back to its number's rule). */
export async function forceOutcome(t: TestApp, vaultId: string, returnCode: string | null): Promise<void> {
  const res = await t.inject({ method: 'POST', url: `/sandbox/vaults/${vaultId}/outcome`, headers: t.adminHeaders, payload: { returnCode } });
  expect(res.statusCode, res.body).toBe(200);
}

/**
 * A plan with `attempts` retries and a subscription on a stored card, due after a one-day
 * trial; answers the ids. `decline` makes the first charge answer 51 (insufficient funds).
 */
export async function subscription(t: TestApp, m: TestMerchant, o: { name?: string; order?: string; attempts?: number; card?: string } = {}) {
  const R = '/gateway/v1/recurrences';
  const plan = await api(t, 'POST', `${R}/plans`, m.headers, { name: o.name ?? 'Plano Ouro', description: 'Ouro', amount: 49.9, planType: 'Monthly', paymentMethod: 'CreditCard', trialDays: 1, attempts: o.attempts ?? 2 });
  expect(plan.statusCode, plan.body).toBe(201);
  const vaultId = await vault(t, m, o.card ?? '4111111111111111');
  const sub = await api(t, 'POST', `${R}/subscriptions`, m.headers, { planId: plan.json(), vaultId, orderNumber: o.order ?? 'PED-1' });
  expect(sub.statusCode, sub.body).toBe(201);
  return { planId: plan.json() as string, vaultId, subscriptionId: sub.json() as string };
}

/** A bank slip issued and registered; answers its information. */
export async function bankSlip(t: TestApp, m: FullMerchant, dueDate: string, payerName = 'Maria da Silva') {
  const res = await t.inject({
    method: 'POST',
    url: `/integration/api/billissuer/issue?accountNumber=${m.accountNumber}`,
    headers: m.integration,
    payload: {
      value: 150.75,
      dueDate,
      payer: { document: '52998224725', name: payerName, streetAndNumber: 'Rua das Flores, 123', zipCode: '01310100', city: 'São Paulo', state: 'SP', neighborhood: 'Bela Vista' },
      referenceCode: 'pedido-42',
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  await advance(t, { minutes: 0 });
  return res.json().id as string;
}

export async function pixCharge(t: TestApp, m: TestMerchant, amount: number, description: string) {
  const res = await api(t, 'POST', '/gateway/v1/pix/charges', m.headers, { amount, description });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; pixEmv: string; status: string };
}

/** Page text without tags, spaces collapsed: what a reader sees. */
export function textOf(body: string): string {
  return body.replace(/<[^>]+>/g, ' ').replace(/&nbsp;/g, ' ').replace(/\s+/g, ' ');
}
