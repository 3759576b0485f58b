import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/database.js';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { pixAuto } from '../recurrence/pix-automatico-support.js';
import { textOf } from './merchant-pages-support.js';
import { DashboardClient } from './support.js';

describe(`dashboard: a Pix Automático subscription (${testDialect})`, () => {
  let t: TestApp;
  let m: TestMerchant;
  let c: DashboardClient;
  beforeAll(async () => {
    t = await testApp();
    m = await t.merchant();
    c = new DashboardClient(t);
    await c.loginMerchant(m);
  });
  afterAll(() => t?.close());

  it('shows the authorization (status, idRec, the copy-and-paste code) and, once authorized, billing 1 paid by Pix', async () => {
    const pix = pixAuto(t, m);
    const subscriptionId = await pix.subscribe(await pix.plan());
    const { recurrenceId, pixEmv } = (await pix.subscription(subscriptionId)).pixAuthorization;
    let page = await c.get(`/dashboard/subscriptions/${subscriptionId}`);
    expect(page.statusCode).toBe(200);
    let text = textOf(page.body);
    expect(text).toContain('Aguardando autorização');
    expect(text).toContain('CRIADA');
    expect(text).toContain(recurrenceId);
    expect(page.body).toContain(pixEmv);
    expect(text).toMatch(/até 3 retentativas em 7 dias/);
    expect((await c.get('/dashboard/subscriptions?status=PendingAuthorization')).body).toContain('PIX-1');

    await pix.payer(recurrenceId, 'authorize');
    page = await c.get(`/dashboard/subscriptions/${subscriptionId}`);
    text = textOf(page.body);
    expect(text).toContain('APROVADA');
    expect(text).toContain('Cobrança 1');
    expect(text).toContain('Paga');
    expect(page.body).toMatch(/href="\/dashboard\/pix\/[0-9a-f-]{36}"/);
  });
});
