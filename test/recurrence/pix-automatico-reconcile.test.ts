import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeContext, createContext } from '../../src/root/context.js';
import { createLogger } from '../../src/logger.js';
import { reconcileCursors } from '../../src/modules/pix/reconcile-cursors.js';
import { RECONCILE_OVERLAP_MS } from '../../src/modules/pix/reconciliation.js';
import { pspGateway, type PspGateway } from '../pix/psp-support.js';
import { secondConnection, testDialect, type TestDatabase } from '../support/database.js';
import type { TestMerchant } from '../support/harness.js';
import { pixAuto } from './pix-automatico-support.js';
import { addDays, clock, recurrence } from './support.js';

/** The stand-in's pages hold 25 items: 60 to 75 recurrences are 3 pages. */
const PAGE = 25;
const MINUTE = 60_000;

/**
 * Pix Automático's reconciliation with PIX_PROVIDER=bcb reads the PSP's `GET /rec` and
 * `GET /cobr` lists by creation window and page: a run costs a call per page, whatever the
 * number of open items, and recovers in one run what lost webhooks did not tell, however long
 * after its creation the item changed.
 */
describe(`Pix Automático reconciliation through the lists (${testDialect})`, () => {
  let g: PspGateway;
  /** How far the PSP's clock is behind the gateway's. */
  let skewMs = 0;
  let m: TestMerchant;
  let planId: string;
  const subs: { subscriptionId: string; recurrenceId: string }[] = [];
  beforeAll(async () => {
    g = await pspGateway({
      standIn: { now: () => new Date(g.t.ctx.clock.now().getTime() - skewMs), pageSize: PAGE },
      env: { PIX_RECEIVER_ACCOUNT: '012682', PIX_RECONCILE_INTERVAL_SECONDS: '86400' },
    });
    m = await g.t.merchant();
    planId = await pixAuto(g.t, m).plan({ name: 'Plano Lista' });
  });
  afterAll(() => g?.close());

  const pix = () => pixAuto(g.t, m);
  const db = () => g.t.ctx.database.db;
  async function subscribe(orderNumber: string) {
    const subscriptionId = await pix().subscribe(planId, orderNumber);
    return { subscriptionId, recurrenceId: (await pix().subscription(subscriptionId)).pixAuthorization.recurrenceId as string };
  }
  const status = async (subscriptionId: string) => (await pix().subscription(subscriptionId)).status as string;
  const secondBilling = (subscriptionId: string) => db().selectFrom('billings').selectAll().where('subscription_id', '=', subscriptionId).where('installment', '=', 2).executeTakeFirstOrThrow();
  const cobrOf = async (subscriptionId: string) => db().selectFrom('pix_recurring_charges').selectAll().where('billing_id', '=', (await secondBilling(subscriptionId)).billing_id).executeTakeFirstOrThrow();
  const perItemReads = () => g.psp.requests.filter((r) => r.method === 'GET' && /^\/(rec|cobr)\/[^/?]+$/.test(r.path));
  const lastWindow = (list: 'rec' | 'cobr') => new URLSearchParams(g.psp.requests.filter((r) => r.method === 'GET' && r.path.startsWith(`/${list}?`)).at(-1)!.path.split('?')[1]);

  /** One run, and the calls it made to each list. */
  async function run(ctx = g.t.ctx) {
    const before = { rec: g.psp.calls('GET', '/rec'), cobr: g.psp.calls('GET', '/cobr') };
    const summary = await ctx.pix.runReconciliation();
    return { ...summary, calls: { rec: g.psp.calls('GET', '/rec') - before.rec, cobr: g.psp.calls('GET', '/cobr') - before.cobr } };
  }

  it('the window starts an overlap before the oldest open recurrence: one the PSP stamped 5 minutes earlier (its clock behind) is listed', async () => {
    skewMs = 5 * MINUTE;
    const s = await subscribe('LIST-0');
    subs.push(s);
    await g.psp.automatico.authorize(s.recurrenceId, { webhook: 'lose' });
    skewMs = 0;
    expect(await status(s.subscriptionId)).toBe('PendingAuthorization');
    const result = await run();
    expect(result).toMatchObject({ recurrences: 1, calls: { rec: 1, cobr: 0 } });
    expect(await status(s.subscriptionId)).toBe('Active');
    const local = await db().selectFrom('pix_recurrences').select('created_at').where('recurrence_id', '=', s.recurrenceId).executeTakeFirstOrThrow();
    expect(lastWindow('rec').get('inicio')).toBe(new Date(Date.parse(local.created_at) - RECONCILE_OVERLAP_MS).toISOString());
  });

  it('60 more open recurrences in pages of 25: one run reads GET /rec in 3 calls, never one per recurrence, and recovers a lost authorization', async () => {
    for (let i = 1; i <= 60; i++) subs.push(await subscribe(`LIST-${i}`));
    for (const s of subs.slice(1, 60)) await g.psp.automatico.authorize(s.recurrenceId);
    const late = subs[60];
    await g.psp.automatico.authorize(late.recurrenceId, { webhook: 'lose' });
    expect(await status(late.subscriptionId)).toBe('PendingAuthorization');

    // 61 recurrences listed (3 pages); no cycle charge is open yet, so GET /cobr is not read.
    expect(await run()).toMatchObject({ recurrences: 1, charges: 0, calls: { rec: 3, cobr: 0 } });
    expect(await status(late.subscriptionId)).toBe('Active');
    // Again: the same pages, nothing applied twice.
    expect(await run()).toMatchObject({ recurrences: 0, calls: { rec: 3, cobr: 0 } });
    expect(perItemReads()).toEqual([]);
  });

  it('a month on, their 61 cobrs in 3 pages: one run recovers a cobr paid, a cobr refused and a recurrence the payer cancelled, their webhooks lost', async () => {
    const clk = clock(g.t);
    const due = (await secondBilling(subs[1].subscriptionId)).expire_at;
    await clk.to(addDays(due, -9.9));
    await clk.to(due);
    const [paid, refused, cancelled] = [subs[1], subs[2], subs[3]];
    const paidCobr = await cobrOf(paid.subscriptionId);
    const refusedCobr = await cobrOf(refused.subscriptionId);
    await g.psp.automatico.settle(paidCobr.txid, 'paid', { webhook: 'lose' });
    await g.psp.automatico.settle(refusedCobr.txid, 'refused', { webhook: 'lose' });
    await g.psp.automatico.cancel(cancelled.recurrenceId, { webhook: 'lose' });

    const result = await run();
    expect(result).toMatchObject({ recurrences: 1, charges: 2, calls: { rec: 3, cobr: 3 } });
    expect((await secondBilling(paid.subscriptionId)).status).toBe('Paid');
    expect((await cobrOf(paid.subscriptionId)).status).toBe('CONCLUIDA');
    const failed = await recurrence(g.t, m).billing((await secondBilling(refused.subscriptionId)).billing_id);
    expect(failed).toMatchObject({ status: 'Opened', attemptsHistory: [expect.objectContaining({ returnCode: 'AM02' })] });
    expect(await pix().subscription(cancelled.subscriptionId)).toMatchObject({ status: 'Canceled', pixAuthorization: { status: 'CANCELADA', canceledBy: 'payer' } });
    // The windows reach back to the oldest item still open here, a month before the cursors' ends.
    const now = g.t.ctx.clock.now().getTime();
    expect(now - Date.parse(lastWindow('rec').get('inicio')!)).toBeGreaterThan(28 * 86_400_000);
    expect(now - Date.parse(lastWindow('cobr').get('inicio')!)).toBeGreaterThan(9 * 86_400_000);
    for (const list of ['rec', 'cobr'] as const) expect(now - Date.parse((await reconcileCursors.readUntil(db(), list))!)).toBeLessThan(MINUTE);
    // The refused tentative reached the billing: its retry is asked.
    await clk.runDue();
    expect(g.psp.requests.filter((r) => r.method === 'POST' && r.path.startsWith(`/cobr/${refusedCobr.txid}/retentativa/`))).toHaveLength(1);
    expect(await run()).toMatchObject({ recurrences: 0, charges: 0 });
  });

  it('the calls do not grow with the open items: 10 more recurrences, still 3 pages; an item this gateway never made is skipped', async () => {
    for (let i = 61; i <= 70; i++) subs.push(await subscribe(`LIST-${i}`));
    const open = await db().selectFrom('pix_recurrences').select('recurrence_id').where('status', 'in', ['CRIADA', 'APROVADA']).execute();
    expect(open).toHaveLength(70);
    const known = g.psp.automatico.recs.get(subs[4].recurrenceId)!;
    const stranger = 'RR1234567820990101abcdefghijk';
    g.psp.automatico.recs.set(stranger, { ...known, idRec: stranger, status: 'CANCELADA' });
    expect(await run()).toMatchObject({ recurrences: 0, calls: { rec: 3, cobr: 3 } });
    expect(await db().selectFrom('pix_recurrences').select('recurrence_id').where('recurrence_id', '=', stranger).execute()).toEqual([]);
    g.psp.automatico.recs.delete(stranger);
    expect(perItemReads()).toEqual([]);
  });

  it('another instance, or the same one restarted, reads from what the database holds open: a lost cancel is recovered there', async () => {
    const target = subs[5];
    await g.psp.automatico.cancel(target.recurrenceId, { webhook: 'lose' });
    const database = testDialect === 'postgres' ? await secondConnection(g.t.ctx.database as TestDatabase) : g.t.ctx.database;
    const other = await createContext(g.t.config, { database, logger: createLogger('silent') });
    try {
      expect(await run(other)).toMatchObject({ recurrences: 1, calls: { rec: 3 } });
    } finally {
      await closeContext(other, { keepDatabase: true });
      if (database !== g.t.ctx.database) await database.close();
    }
    expect(await status(target.subscriptionId)).toBe('Canceled');
  });
});
