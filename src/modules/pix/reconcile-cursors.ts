import type { Executor } from '../../db/connection.js';

/** The PSP lists the reconciliation reads by window (./reconciliation.ts). */
export type ReconciledList = 'pix' | 'rec' | 'cobr';

/** pix_reconcile_cursors: where each list has been read to, shared by every instance. */
export const reconcileCursors = {
  async readUntil(db: Executor, list: ReconciledList): Promise<string | undefined> {
    const row = await db.selectFrom('pix_reconcile_cursors').select('read_until').where('list', '=', list).executeTakeFirst();
    return row?.read_until;
  },

  /**
   * Moves the cursor to `until`, never back: of two instances finishing runs out of order, the
   * later end stays (ISO instants of one format compare as strings).
   */
  async advance(db: Executor, list: ReconciledList, until: string, at: string): Promise<void> {
    await db
      .insertInto('pix_reconcile_cursors')
      .values({ list, read_until: until, updated_at: at })
      .onConflict((oc) =>
        oc
          .column('list')
          .doUpdateSet({ read_until: (eb) => eb.ref('excluded.read_until'), updated_at: (eb) => eb.ref('excluded.updated_at') })
          .where((eb) => eb('pix_reconcile_cursors.read_until', '<', eb.ref('excluded.read_until'))),
      )
      .execute();
  },
};
