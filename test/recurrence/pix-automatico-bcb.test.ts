import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { pspGateway, type PspGateway } from '../pix/psp-support.js';
import { pixAuto } from './pix-automatico-support.js';
import { R } from './support.js';

/** With a PSP (PIX_PROVIDER=bcb) Pix Automático is refused whole, for now: 502 with the reason, nothing recorded. */
describe(`Pix Automático with PIX_PROVIDER=bcb (${testDialect})`, () => {
  let g: PspGateway;
  beforeAll(async () => {
    g = await pspGateway();
  });
  afterAll(() => g?.close());

  it('a Pix plan is accepted, its subscription is 502 naming the sandbox, and no subscription or billing is left', async () => {
    const m = await g.t.merchant();
    const planId = await pixAuto(g.t, m).plan();
    const res = await g.t.inject({ method: 'POST', url: `${R}/subscriptions`, headers: m.headers, payload: { planId, orderNumber: 'B-1', payer: { documentNumber: '52998224725', name: 'M' } } });
    expect(res.statusCode, res.body).toBe(502);
    expect(res.body).toContain('PIX_PROVIDER=sandbox');
    const db = g.t.ctx.database.db;
    expect(await db.selectFrom('subscriptions').select('subscription_id').where('merchant_id', '=', m.merchantId).execute()).toEqual([]);
    expect(await db.selectFrom('pix_recurrences').select('recurrence_id').execute()).toEqual([]);
  });
});
