import { expect } from 'vitest';
import { paymentBody, tokenize } from '../support/cards.js';
import type { TestApp, TestMerchant } from '../support/harness.js';

export const CONCIL = '/integration/api/transaction/concil';

/** A merchant with a gateway token, an integration token and lifted velocity limits. */
export async function settlementMerchant(t: TestApp): Promise<TestMerchant & { integration: Record<string, string> }> {
  const m = await t.merchant();
  const lifted = await t.inject({
    method: 'PUT',
    url: `/admin/merchants/${m.merchantId}/antifraud`,
    headers: t.adminHeaders,
    payload: { velocity: { maxPerCard: 100000, maxPerDocument: 100000, maxPerIp: 100000 } },
  });
  expect(lifted.statusCode).toBe(200);
  const login = await t.inject({ method: 'POST', url: '/integration/api/authentication/login', payload: { userName: m.userName, password: m.password } });
  return { ...m, integration: { authorization: `Bearer ${login.json().accessToken}` } };
}

/** Moves the sandbox clock to an ISO instant (running every job due up to it). */
export async function advanceTo(t: TestApp, to: string): Promise<void> {
  const res = await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { to } });
  expect(res.statusCode, res.body).toBe(200);
}

/** A card payment through the API; answers the payment body. */
export async function pay(
  t: TestApp,
  m: TestMerchant,
  o: { amount: number; installments: number; card?: string; email?: string; reference?: string; splits?: object[] },
) {
  const numberToken = await tokenize(t, m, o.card ?? '4111111111111111');
  const body = paymentBody(
    { numberToken },
    {
      payment: { transactionType: 'credit', amount: o.amount, productType: o.installments === 1 ? 'avista' : 'lojista', installments: o.installments },
      referenceTransaction: o.reference ?? 'order-1',
      ...(o.splits ? { configSplit: o.splits } : {}),
    },
  );
  if (o.email) (body.customer as { email: string }).email = o.email;
  const res = await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** POST a conciliation search with query parameters (no body). */
export function search(t: TestApp, headers: Record<string, string>, name: string, query: Record<string, string | number>) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return t.inject({ method: 'POST', url: `${CONCIL}/${name}?${qs}`, headers });
}
