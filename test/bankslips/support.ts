import { expect } from 'vitest';
import { addDays, toIsoDate } from '../../src/domain/calendar.js';
import type { TestApp, TestMerchant } from '../support/harness.js';

export const BASE = '/integration/api/billissuer';

/** A valid issue body; `overrides` replace top-level fields, `payer` fields merge. */
export function slipBody(overrides: Record<string, unknown> = {}, payer: Record<string, unknown> = {}) {
  return {
    value: 150.75,
    // Far enough ahead for any clock advance a test makes before issuing.
    dueDate: addDays(toIsoDate(new Date()), 400),
    payer: {
      document: '52998224725',
      name: 'Maria da Silva',
      streetAndNumber: 'Rua das Flores, 123',
      zipCode: '01310100',
      city: 'São Paulo',
      state: 'SP',
      neighborhood: 'Bela Vista',
      phoneNumber: '11999998888',
      ...payer,
    },
    referenceCode: 'order-42',
    ...overrides,
  };
}

export async function today(t: TestApp): Promise<string> {
  return toIsoDate(t.ctx.clock.now());
}

export const inDays = async (t: TestApp, n: number) => addDays(await today(t), n);

export function issue(t: TestApp, m: TestMerchant, payload: object, headers: Record<string, string> = {}, accountNumber: unknown = m.accountNumber) {
  return t.inject({ method: 'POST', url: `${BASE}/issue?accountNumber=${accountNumber}`, headers: { ...m.headers, ...headers }, payload });
}

/** Issues a slip and runs its registration job (due at once): advancing the clock by 0 runs what is due. */
export async function issued(t: TestApp, m: TestMerchant, payload: object): Promise<any> {
  const res = await issue(t, m, payload);
  expect(res.statusCode, res.body).toBe(201);
  await runDueJobs(t);
  return information(t, m, res.json().id);
}

export async function runDueJobs(t: TestApp): Promise<void> {
  const res = await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { minutes: 0 } });
  expect(res.statusCode).toBe(200);
}

export async function advanceTo(t: TestApp, to: string): Promise<void> {
  const res = await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { to } });
  expect(res.statusCode, res.body).toBe(200);
}

export async function information(t: TestApp, m: TestMerchant, id: string): Promise<any> {
  const res = await t.inject({ method: 'GET', url: `${BASE}/information?accountNumber=${m.accountNumber}&id_bill=${id}`, headers: m.headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export function pay(t: TestApp, id: string, payload: object = {}) {
  return t.inject({ method: 'POST', url: `/sandbox/bankslips/${id}/pay`, headers: t.adminHeaders, payload });
}

export function list(t: TestApp, m: TestMerchant, by: 'due-date' | 'payment-date' | 'credit-date', query: Record<string, string | number>) {
  const qs = new URLSearchParams(Object.entries({ accountNumber: m.accountNumber, ...query }).map(([k, v]): [string, string] => [k, String(v)]));
  return t.inject({ method: 'GET', url: `${BASE}/list/by/${by}?${qs}`, headers: m.headers });
}

export async function events(t: TestApp, id: string) {
  return t.ctx.database.db
    .selectFrom('bankslip_events')
    .select(['old_status_bill', 'new_status_bill', 'occurred_at', 'account_number'])
    .where('bankslip_id', '=', id)
    .orderBy('id')
    .execute();
}
