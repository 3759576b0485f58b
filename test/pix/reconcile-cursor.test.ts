import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VirtualClock } from '../../src/clock.js';
import { closeContext, createContext, type AppContext } from '../../src/root/context.js';
import { createLogger } from '../../src/logger.js';
import { reconcileCursors } from '../../src/modules/pix/reconcile-cursors.js';
import { RECONCILE_OVERLAP_MS } from '../../src/modules/pix/reconciliation.js';
import { secondConnection, testDialect, type TestDatabase } from '../support/database.js';
import { pspGateway, type PspGateway } from './psp-support.js';

const CHARGES = '/gateway/v1/pix/charges';
const MINUTE = 60_000;

/**
 * The reconciliation's `GET /pix` reads from where the last run read to (pix_reconcile_cursors):
 * after an outage longer than PIX_RECONCILE_WINDOW_SECONDS a restarted instance, or another
 * one, reads the gap, and each window starts RECONCILE_OVERLAP_MS before the last one ended, so
 * a Pix the PSP lists late is still read.
 */
describe(`Pix reconciliation cursor (${testDialect})`, () => {
  let g: PspGateway;
  const cleanup: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    // A one-minute window, the job once a day: only the runs a test makes read the lists.
    g = await pspGateway({ env: { PIX_RECONCILE_WINDOW_SECONDS: '60', PIX_RECONCILE_INTERVAL_SECONDS: '86400' } });
  });
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
    await g?.close();
  });

  const create = async (amount: number) => {
    const res = await g.t.inject({ method: 'POST', url: CHARGES, headers: g.headers, payload: { amount } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; txid: string };
  };
  const status = async (id: string) => (await g.t.inject({ method: 'GET', url: `${CHARGES}/${id}`, headers: g.headers })).json().status as string;
  const pixWindows = () => g.psp.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/pix?')).map((r) => new URLSearchParams(r.path.slice(5)).get('inicio'));
  const readUntil = () => reconcileCursors.readUntil(g.t.ctx.database.db, 'pix');
  /** One run of `ctx`, business time standing at `at` (instants the test names exactly). */
  const runAt = (ctx: AppContext, at: Date) => (ctx.clock as VirtualClock).runAt(at, () => ctx.pix.runReconciliation());
  const later = (minutes: number) => new Date(g.t.ctx.clock.now().getTime() + minutes * MINUTE);

  /** Another instance on the same database: its own pool on PostgreSQL, the same one on SQLite. */
  async function instance(): Promise<AppContext> {
    const database = testDialect === 'postgres' ? await secondConnection(g.t.ctx.database as TestDatabase) : g.t.ctx.database;
    const other = await createContext(g.t.config, { database, logger: createLogger('silent') });
    cleanup.push(async () => {
      await closeContext(other, { keepDatabase: true });
      if (database !== g.t.ctx.database) await database.close();
    });
    return other;
  }

  it('a run reads the last window and records where it read to', async () => {
    const at = later(1);
    const before = pixWindows().length;
    await runAt(g.t.ctx, at);
    expect(pixWindows().slice(before)).toEqual([new Date(at.getTime() - 60_000).toISOString()]);
    expect(await readUntil()).toBe(at.toISOString());
  });

  it('after an outage longer than the window, a restarted instance reads the gap from the cursor and pays the Pix no webhook brought', async () => {
    const ended = later(2);
    await runAt(g.t.ctx, ended);
    const charge = await create(1234);
    await g.psp.pay(charge.txid, { webhook: 'lose', horario: new Date(ended.getTime() + 5 * MINUTE) });
    // The process stops; half an hour later (30 windows) a new one starts on the same database.
    const restarted = await instance();
    const before = pixWindows().length;
    const at = new Date(ended.getTime() + 30 * MINUTE);
    expect((await runAt(restarted, at)).pix).toEqual({ applied: 1, duplicates: 0, unmatched: 0 });
    expect(pixWindows().slice(before)).toEqual([new Date(ended.getTime() - RECONCILE_OVERLAP_MS).toISOString()]);
    expect(await status(charge.id)).toBe('Paid');
    expect(await readUntil()).toBe(at.toISOString());
  });

  it('windows overlap: a Pix settled just before a run ended but listed by the PSP after it is read by the next run', async () => {
    const charge = await create(4321);
    const ended = later(40);
    await runAt(g.t.ctx, ended);
    // Settled a minute before that run's end, listed only now (its webhook lost).
    await g.psp.pay(charge.txid, { webhook: 'lose', horario: new Date(ended.getTime() - MINUTE) });
    expect((await runAt(g.t.ctx, new Date(ended.getTime() + 10 * MINUTE))).pix.applied).toBe(1);
    expect(await status(charge.id)).toBe('Paid');
  });

  it('the cursor is shared by the instances and never moves back', async () => {
    const other = await instance();
    const ended = later(80);
    await runAt(other, ended);
    expect(await readUntil()).toBe(ended.toISOString());
    // The first instance goes on from the second's end.
    const before = pixWindows().length;
    await runAt(g.t.ctx, new Date(ended.getTime() + 20 * MINUTE));
    expect(pixWindows().slice(before)).toEqual([new Date(ended.getTime() - RECONCILE_OVERLAP_MS).toISOString()]);
    // A run that started earlier and finishes later leaves the later end in place.
    const latest = (await readUntil())!;
    await reconcileCursors.advance(other.database.db, 'pix', ended.toISOString(), latest);
    expect(await readUntil()).toBe(latest);
  });
});
