import { expect } from 'vitest';
import { paymentBody, vault } from '../support/cards.js';
import type { TestApp, TestMerchant } from '../support/harness.js';

/** A payment held for review (sandbox: a customer e-mail at review.test), made through the merchant's API. */
export async function blockedPayment(t: TestApp, m: TestMerchant, reference: string): Promise<string> {
  const body = paymentBody({ vaultId: await vault(t, m, '4111111111111111') }, { referenceTransaction: reference });
  body.customer.email = 'someone@review.test';
  const res = await t.inject({ method: 'POST', url: '/gateway/v1/payments', headers: m.headers, payload: body });
  expect(res.json().status).toBe('Blocked');
  return res.json().paymentId;
}
