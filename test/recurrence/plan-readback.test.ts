import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { R, recurrence } from './support.js';

/** A plan read back with GET, its null fields included, is accepted when posted back as an update. */
describe(`a plan read back can be posted as an update (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let api: ReturnType<typeof recurrence>;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    api = recurrence(t, m);
  });
  afterAll(() => t.close());

  it('fixed and Custom plans: GET, change the name, POST back: 200', async () => {
    for (const body of [{ planType: 'Monthly' }, { planType: 'Yearly', trialDays: 7 }, { planType: 'Custom', interval: 25, installments: 6 }]) {
      const id = await api.plan(body);
      const read = (await api.get(`${R}/plans/${id}`)).json();
      const res = await api.post(`${R}/plans/${id}`, { ...read, name: 'Renamed' });
      expect(res.statusCode, `${body.planType}: ${res.body}`).toBe(200);
      expect((await api.get(`${R}/plans/${id}`)).json()).toMatchObject({ ...read, name: 'Renamed' });
    }
  });

  it('an update still refuses a value the fixed type does not have, and Custom still needs its installments', async () => {
    const id = await api.plan({ planType: 'Monthly' });
    const read = (await api.get(`${R}/plans/${id}`)).json();
    const wrongInterval = await api.post(`${R}/plans/${id}`, { ...read, interval: 31 });
    expect(wrongInterval.statusCode).toBe(400);
    expect(wrongInterval.json()[0].tag).toBe('interval');
    const withEnd = await api.post(`${R}/plans/${id}`, { ...read, installments: 3 });
    expect(withEnd.statusCode).toBe(400);
    expect(withEnd.json()[0].tag).toBe('installments');
    const custom = await api.plan({ planType: 'Custom', interval: 30, installments: 2 });
    const readCustom = (await api.get(`${R}/plans/${custom}`)).json();
    const noEnd = await api.post(`${R}/plans/${custom}`, { ...readCustom, installments: null });
    expect(noEnd.statusCode).toBe(400);
    expect(noEnd.json()[0].tag).toBe('installments');
  });
});
