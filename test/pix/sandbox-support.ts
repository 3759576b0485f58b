import { expect } from 'vitest';
import { settlementMerchant } from '../settlement/support.js';
import { testApp, type TestApp } from '../support/harness.js';
import { subscribe } from '../webhooks/support.js';

export const CHARGES = '/gateway/v1/pix/charges';

type Merchant = Awaited<ReturnType<typeof settlementMerchant>>;

/** A sandbox gateway (the gateway plays the PSP) for Pix refund and MED tests, and the calls they share. */
export interface PixSandbox {
  t: TestApp;
  /** The merchant the tests act as; its webhooks go nowhere (every type), so each event is recorded. */
  m: Merchant;
  /** Another merchant, to whom `m`'s charges are not found. */
  other: Merchant;
  /** A charge of `m`, paid through the sandbox. */
  paidCharge(amount: number): Promise<{ id: string; txid: string }>;
  /** POST a refund of a charge (as `m` unless other headers are given); answers the response. */
  refund(chargeId: string, payload: object, headers?: Record<string, string>): ReturnType<TestApp['inject']>;
  /** GET the charge's refunds (items). */
  refunds(chargeId: string): Promise<any[]>;
  /** GET the charge. */
  charge(chargeId: string): Promise<any>;
  close(): Promise<void>;
}

export async function pixSandbox(): Promise<PixSandbox> {
  const t = await testApp();
  const m = await settlementMerchant(t);
  const other = await settlementMerchant(t);
  expect((await subscribe(t, m, { url: 'http://127.0.0.1:9/hook', types: ['*'] })).statusCode).toBe(200);
  return {
    t,
    m,
    other,
    async paidCharge(amount) {
      const charge = (await t.inject({ method: 'POST', url: CHARGES, headers: m.headers, payload: { amount } })).json();
      expect((await t.inject({ method: 'POST', url: `/sandbox/pix/${charge.id}/pay`, headers: t.adminHeaders })).statusCode).toBe(200);
      return charge;
    },
    refund: (chargeId, payload, headers = m.headers) => t.inject({ method: 'POST', url: `${CHARGES}/${chargeId}/refunds`, headers, payload }),
    refunds: async (chargeId) => (await t.inject({ method: 'GET', url: `${CHARGES}/${chargeId}/refunds`, headers: m.headers })).json().items,
    charge: async (chargeId) => (await t.inject({ method: 'GET', url: `${CHARGES}/${chargeId}`, headers: m.headers })).json(),
    close: () => t.close(),
  };
}
