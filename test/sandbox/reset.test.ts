import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp, type TestMerchant } from '../support/harness.js';
import { testDialect } from '../support/database.js';
import { paymentBody, tokenize, vault } from '../support/cards.js';
import { linkBody, LINKS } from '../paymentlinks/support.js';
import { runCli, type CliIo } from '../../src/cli.js';
import { VirtualClock } from '../../src/clock.js';
import { SandboxClockService } from '../../src/modules/sandbox/clock-service.js';

const PAY = '/gateway/v1/payments';
const DAY = 24 * 60 * 60 * 1000;

describe(`sandbox reset (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  const clock = async () => Date.parse((await t.inject({ method: 'GET', url: '/sandbox/clock', headers: t.adminHeaders })).json().now);
  const count = async (table: 'payments' | 'vault_cards' | 'payment_links' | 'idempotency_keys' | 'jobs', merchantId?: string) => {
    let q = t.ctx.database.db.selectFrom(table as 'payments').select((eb) => eb.fn.countAll<number>().as('n'));
    if (merchantId) q = q.where('merchant_id', '=', merchantId);
    return Number((await q.executeTakeFirstOrThrow()).n);
  };
  /** A payment (with an Idempotency-Key), a stored card and a payment link for one merchant. */
  async function business(m: TestMerchant, key: string) {
    const paid = await t.inject({ method: 'POST', url: PAY, headers: { ...m.headers, 'idempotency-key': key }, payload: paymentBody({ numberToken: await tokenize(t, m, '4111111111111111') }) });
    expect(paid.statusCode).toBe(201);
    await vault(t, m, '5555555555554444');
    expect((await t.inject({ method: 'POST', url: LINKS, headers: m.headers, payload: linkBody(t) })).statusCode).toBe(201);
    return paid.json();
  }

  it('requires the operator key', async () => {
    const m = await t.merchant();
    expect((await t.inject({ method: 'POST', url: '/sandbox/reset' })).statusCode).toBe(401);
    expect((await t.inject({ method: 'POST', url: '/sandbox/reset', headers: m.headers })).statusCode).toBe(401);
    expect((await t.inject({ method: 'POST', url: `/sandbox/merchants/${m.merchantId}/reset`, headers: m.headers })).statusCode).toBe(401);
  });

  it('returns the clock to real time, removes the business data and keeps merchants and credentials', async () => {
    const m = await t.merchant();
    await business(m, 'order-1001');
    const advanced = await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { days: 240 } });
    expect(advanced.statusCode).toBe(200);
    expect((await clock()) - Date.now()).toBeGreaterThan(239 * DAY);

    const res = await t.inject({ method: 'POST', url: '/sandbox/reset', headers: t.adminHeaders });
    expect(res.statusCode).toBe(200);
    expect(Math.abs(Date.parse(res.json().now) - Date.now())).toBeLessThan(5000);
    expect(res.json().removed.payments).toBeGreaterThanOrEqual(1);
    expect(Math.abs((await clock()) - Date.now())).toBeLessThan(5000);
    for (const table of ['payments', 'vault_cards', 'payment_links', 'idempotency_keys'] as const) expect(await count(table), table).toBe(0);
    // Only the re-scheduled daily purge is left in the queue, due tomorrow on the real clock.
    const jobs = await t.ctx.database.db.selectFrom('jobs').select(['kind', 'run_at']).execute();
    expect(jobs.map((j) => j.kind)).toEqual(['maintenance.purge']);
    expect(Date.parse(jobs[0].run_at) - Date.now()).toBeLessThanOrEqual(DAY);

    // The same credential still logs in; the same Idempotency-Key makes a new payment (no 409);
    // a link expiring tomorrow (refused "in the past" before the reset) is accepted.
    const login = await t.inject({ method: 'POST', url: '/gateway/api/auth/token', payload: { userName: m.userName, password: m.password } });
    expect(login.statusCode).toBe(200);
    const headers = { authorization: `Bearer ${login.json().accessToken}` };
    await business({ ...m, headers }, 'order-1001');
    expect((await t.inject({ method: 'GET', url: `/admin/merchants/${m.merchantId}`, headers: t.adminHeaders })).statusCode).toBe(200);
  });

  it('every table is either reset or kept on purpose (a new table must choose)', async () => {
    const res = await t.inject({ method: 'POST', url: '/sandbox/reset', headers: t.adminHeaders });
    const removed = Object.keys(res.json().removed);
    // Configuration and identity stay; `settings` holds the clock, which the reset sets itself.
    // `pix_reconcile_cursors` tells how far the PSP's lists were read: the PSP forgets nothing on our reset.
    const KEPT = [
      'merchants', 'credentials', 'login_attempts', 'dashboard_sessions', 'card_keys', 'settings', 'merchant_pricing', 'antifraud_settings',
      'antifraud_blocklist', 'acquirer_connections', 'webhook_subscriptions', 'pix_reconcile_cursors', 'kysely_migration', 'kysely_migration_lock',
    ];
    // PostgreSQL: this test file's own schema only (the introspection lists every schema's tables).
    const schema = testDialect === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(t.ctx.database.db)).rows[0].s : undefined;
    const tables = (await t.ctx.database.db.introspection.getTables()).filter((table) => !schema || table.schema === schema).map((table) => table.name);
    expect(tables.filter((name) => !removed.includes(name) && !KEPT.includes(name))).toEqual([]);
  });

  it('a later advance works from real time and the stored offset follows the reset (a restart keeps it)', async () => {
    const before = Date.now();
    const res = await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { days: 1 } });
    expect(res.statusCode).toBe(200);
    expect(Date.parse(res.json().now) - before).toBeLessThan(DAY + 5000);
    await t.ctx.sandboxClock!.load();
    expect((await clock()) - Date.now()).toBeLessThan(DAY + 5000);
    await t.inject({ method: 'POST', url: '/sandbox/reset', headers: t.adminHeaders });
  });

  it('another instance on the same database follows the reset at its next load (advance or restart)', async () => {
    const other = new VirtualClock();
    const service = new SandboxClockService(t.ctx.database, other, t.ctx.queue, t.ctx.handlers);
    await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { days: 50 } });
    await service.load();
    expect(other.now().getTime() - Date.now()).toBeGreaterThan(49 * DAY);
    await t.inject({ method: 'POST', url: '/sandbox/reset', headers: t.adminHeaders });
    await service.load();
    // Without the reset's generation this instance would keep its larger offset (offsets only grow).
    expect(Math.abs(other.now().getTime() - Date.now())).toBeLessThan(5000);
    // And an advance made there after the reset starts from real time.
    expect(Date.parse((await service.advanceBy({ days: 1 })).now.toISOString()) - Date.now()).toBeLessThan(DAY + 5000);
    await t.inject({ method: 'POST', url: '/sandbox/reset', headers: t.adminHeaders });
  });

  it("the per-merchant variant removes one merchant's data only and leaves the clock", async () => {
    const a = await t.merchant();
    const b = await t.merchant();
    await business(a, 'a-1');
    const kept = await business(b, 'b-1');
    await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { days: 3 } });
    const now = await clock();

    const res = await t.inject({ method: 'POST', url: `/sandbox/merchants/${a.merchantId}/reset`, headers: t.adminHeaders });
    expect(res.statusCode).toBe(200);
    expect(res.json().removed).toMatchObject({ payments: 1, vault_cards: 1, payment_links: 1 });
    expect((await clock()) - now).toBeGreaterThanOrEqual(0);
    expect((await clock()) - Date.now()).toBeGreaterThan(2 * DAY);
    for (const table of ['payments', 'vault_cards', 'payment_links'] as const) {
      expect(await count(table, a.merchantId), table).toBe(0);
      expect(await count(table, b.merchantId), table).toBe(1);
    }
    expect((await t.inject({ method: 'GET', url: `${PAY}/${kept.paymentId}`, headers: b.headers })).statusCode).toBe(200);
    // The jobs left for the removed rows find nothing and end as no-ops (none fails).
    expect((await t.inject({ method: 'POST', url: '/sandbox/clock/advance', headers: t.adminHeaders, payload: { days: 40 } })).statusCode).toBe(200);
    expect(await t.ctx.database.db.selectFrom('jobs').select('kind').where('status', '=', 'failed').execute()).toEqual([]);

    const unknown = await t.inject({ method: 'POST', url: '/sandbox/merchants/mer_nobody/reset', headers: t.adminHeaders });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()[0]).toHaveProperty('tag');
  });

  it('gateway sandbox reset does the same from the command line, and refuses in production', async () => {
    const m = await t.merchant();
    await business(m, 'cli-1');
    const out: string[] = [];
    const io: CliIo = { out: (s) => out.push(s), err: (s) => out.push(s) };
    expect(await runCli(['sandbox', 'reset', '--merchant', m.merchantId], io, t.ctx)).toBe(0);
    expect(JSON.parse(out.join('\n')).removed.payments).toBe(1);
    await business(m, 'cli-2');
    out.length = 0;
    expect(await runCli(['sandbox', 'reset'], io, t.ctx)).toBe(0);
    expect(await count('payments')).toBe(0);
    expect(Math.abs((await clock()) - Date.now())).toBeLessThan(5000);
    out.length = 0;
    const production = { ...t.ctx, sandboxReset: undefined, config: { ...t.ctx.config, mode: 'production' as const } };
    expect(await runCli(['sandbox', 'reset'], io, production)).toBe(1);
    expect(JSON.parse(out.join('\n'))[0].tag).toBe('sandbox_only');
  });
});
