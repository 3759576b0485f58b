import { expect } from 'vitest';
import type { TestApp, TestMerchant } from '../support/harness.js';
import { monthly, R } from './support.js';

/** A valid CPF (checksum) for the payers of the tests. */
export const CPF = '52998224725';

/** Pix Automático helpers: plans and subscriptions of Pix, the sandbox payer's answers. */
export function pixAuto(t: TestApp, m: TestMerchant) {
  const post = (url: string, payload?: object, headers = m.headers) => t.inject({ method: 'POST', url, headers, ...(payload ? { payload } : {}) });
  const admin = (url: string, payload?: object) => t.inject({ method: 'POST', url, headers: t.adminHeaders, ...(payload ? { payload } : {}) });
  return {
    async plan(overrides: Record<string, unknown> = {}): Promise<string> {
      const res = await post(`${R}/plans`, monthly({ paymentMethod: 'Pix', amount: 49.9, ...overrides }));
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    },
    async subscribe(planId: string, orderNumber = 'PIX-1'): Promise<string> {
      const res = await post(`${R}/subscriptions`, { planId, orderNumber, payer: { documentNumber: CPF, name: 'Maria da Silva' } });
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    },
    async subscription(id: string): Promise<any> {
      const res = await t.inject({ method: 'GET', url: `${R}/subscriptions/${id}`, headers: m.headers });
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    },
    /** The payer's answer in the sandbox: authorize, reject or cancel. */
    async payer(recurrenceId: string, action: 'authorize' | 'reject' | 'cancel', status = 200) {
      const res = await admin(`/sandbox/pix/recurrences/${recurrenceId}/${action}`);
      expect(res.statusCode, res.body).toBe(status);
      return res.json();
    },
    async outcome(recurrenceId: string, result: 'paid' | 'insufficient_funds') {
      const res = await admin(`/sandbox/pix/recurrences/${recurrenceId}/outcome`, { result });
      expect(res.statusCode, res.body).toBe(200);
    },
    /** A subscription authorized by its payer: its id and recurrence id. */
    async active(planId: string): Promise<{ subscriptionId: string; recurrenceId: string }> {
      const subscriptionId = await this.subscribe(planId);
      const recurrenceId = (await this.subscription(subscriptionId)).pixAuthorization.recurrenceId;
      await this.payer(recurrenceId, 'authorize');
      return { subscriptionId, recurrenceId };
    },
    /** The pix_charges rows (conciliation: each paid one has its receivable). */
    async receivablesOf(chargeId: string) {
      return t.ctx.database.db.selectFrom('receivables').select(['source_type', 'source_id', 'transaction_total_value']).where('source_type', '=', 'pix').where('source_id', '=', chargeId).execute();
    },
  };
}
