import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import type { PspRecurrenceReports } from '../../src/modules/pix/automatico/psp-reports.js';
import { reconcileCursors } from '../../src/modules/pix/reconcile-cursors.js';
import { PixReconciliation } from '../../src/modules/pix/reconciliation.js';
import { PixProviderUnavailable, type PixProvider, type ProviderPage, type ProviderWindow } from '../../src/pix-provider/types.js';
import { freshDatabase, testDialect, type TestDatabase } from '../support/database.js';

/**
 * A run of PixReconciliation against a scripted PSP: the pages it reads, what one list failing
 * does to the others and to the cursors.
 */
describe(`Pix reconciliation run (${testDialect})`, () => {
  let database: TestDatabase;
  const clock = new VirtualClock();
  beforeEach(async () => {
    database = await freshDatabase();
  });
  afterEach(() => database.close());

  const charge = (txid: string) => ({ txid, status: 'ATIVA' as const, attempts: [] });

  function setup(lists: { rec: (page: number) => Promise<ProviderPage<never>>; cobr: (page: number) => Promise<ProviderPage<ReturnType<typeof charge>>> }) {
    const calls = { pix: 0, rec: [] as number[], cobr: [] as number[], applied: [] as string[] };
    const provider = {
      kind: 'bcb',
      listReceived: async () => (calls.pix++, []),
      listRecurrences: async (_w: ProviderWindow, page: number) => (calls.rec.push(page), lists.rec(page)),
      listRecurringCharges: async (_w: ProviderWindow, page: number) => (calls.cobr.push(page), lists.cobr(page)),
    } as unknown as PixProvider;
    const open = new Date(clock.now().getTime() - 86_400_000).toISOString();
    const reports = {
      oldestOpenRecurrence: async () => open,
      oldestOpenCharge: async () => open,
      applyRecurrences: async () => 0,
      applyCharges: async (items: { txid: string }[]) => (calls.applied.push(...items.map((i) => i.txid)), items.length),
    } as unknown as PspRecurrenceReports;
    const run = new PixReconciliation({ database, clock, provider, windowSeconds: 3600, receive: async () => ({ applied: 0, duplicates: 0, unmatched: 0 }), reports });
    return { calls, run };
  }
  const cursor = (list: 'pix' | 'rec' | 'cobr') => reconcileCursors.readUntil(database.db, list);

  it('a list that fails leaves the others read and their cursors moved, its own not; the run fails so the job retries', async () => {
    const { calls, run } = setup({
      rec: async () => {
        throw new PixProviderUnavailable('PSP rec list answered 503');
      },
      cobr: async (page) => ({ items: [charge(`T${page}`)], pages: 2 }),
    });
    await expect(run.run()).rejects.toThrow('503');
    expect(calls).toMatchObject({ pix: 1, rec: [0], cobr: [0, 1], applied: ['T0', 'T1'] });
    expect(await cursor('pix')).toBeDefined();
    expect(await cursor('cobr')).toBeDefined();
    expect(await cursor('rec')).toBeUndefined();
  });

  it('reads the pages the PSP announces, each once', async () => {
    const { calls, run } = setup({
      rec: async () => ({ items: [], pages: 1 }),
      cobr: async (page) => ({ items: [charge(`T${page}`)], pages: 3 }),
    });
    expect(await run.run()).toMatchObject({ recurrences: 0, charges: 3 });
    expect(calls).toMatchObject({ rec: [0], cobr: [0, 1, 2] });
  });
});
