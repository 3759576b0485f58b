import type { Selectable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { PaymentLinkHistoryTable, PaymentLinksTable } from '../../db/schema.js';
import { LINK_STATUS } from './status.js';

export type PaymentLinkRow = Selectable<PaymentLinksTable>;
export type HistoryRow = Selectable<PaymentLinkHistoryTable>;

/** The referenceTransaction of a link's payments: how the link finds them again. */
export const linkReference = (id: string) => `paymentlink:${id}`;

export const paymentLinksRepository = {
  async insert(db: Executor, row: PaymentLinkRow): Promise<void> {
    await db.insertInto('payment_links').values(row).execute();
  },

  /** A merchant's link; another merchant's id is simply not found (404, no existence leak). */
  async find(db: Executor, id: string, merchantId?: string): Promise<PaymentLinkRow | undefined> {
    let query = db.selectFrom('payment_links').selectAll().where('id', '=', id);
    if (merchantId !== undefined) query = query.where('merchant_id', '=', merchantId);
    return query.executeTakeFirst();
  },

  /** A merchant's links, newest first, keyset-paged on (operation_date, id) (the merchant/operation_date index). */
  async keysetPage(db: Executor, merchantId: string, limit: number, after?: { at: string; id: string }): Promise<PaymentLinkRow[]> {
    let query = db.selectFrom('payment_links').selectAll().where('merchant_id', '=', merchantId);
    if (after) query = query.where((eb) => eb(eb.refTuple('operation_date', 'id'), '<', eb.tuple(after.at, after.id)));
    return query.orderBy('operation_date', 'desc').orderBy('id', 'desc').limit(limit).execute();
  },

  async history(db: Executor, id: string): Promise<HistoryRow[]> {
    return db.selectFrom('payment_link_history').selectAll().where('payment_link_id', '=', id).orderBy('id').execute();
  },

  async addHistory(db: Executor, id: string, status: number, reason: string | null, at: string): Promise<void> {
    await db.insertInto('payment_link_history').values({ payment_link_id: id, status, reason, history_date: at }).execute();
  },

  /**
   * Moves an open link that no checkout attempt holds to `to`, with its history entry, in one
   * transaction. False when the link was not open, or held, or `guard` excluded it: a
   * concurrent change won and no second entry is written. A hold blocks this even once it has
   * run out: its payment may still be waiting for the acquirer (PaymentLinkService.current
   * releases a run-out hold only when the link's payments show nothing was charged).
   */
  async close(db: Executor, id: string, to: number, reason: string, at: string, guard: { expiredBy?: string } = {}): Promise<boolean> {
    let query = db
      .updateTable('payment_links')
      .set({ status: to, updated_at: at })
      .where('id', '=', id)
      .where('status', '=', LINK_STATUS.open)
      .where('claim_id', 'is', null);
    if (guard.expiredBy !== undefined) query = query.where('expiration_date', '<=', guard.expiredBy);
    const result = await query.executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await paymentLinksRepository.addHistory(db, id, to, reason, at);
    return true;
  },

  /**
   * Takes the link for one checkout attempt: only an open, unexpired link that no live attempt
   * holds. One conditional UPDATE, so of two concurrent payers (on any instances) one wins.
   */
  async claim(db: Executor, id: string, claimId: string, until: string, wallNow: string, now: string): Promise<boolean> {
    const result = await db
      .updateTable('payment_links')
      .set({ claim_id: claimId, claimed_until: until })
      .where('id', '=', id)
      .where('status', '=', LINK_STATUS.open)
      .where('expiration_date', '>', now)
      .where((eb) => eb.or([eb('claim_id', 'is', null), eb('claimed_until', '<', wallNow)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Gives the link back after a declined or failed attempt (only the attempt that holds it can). */
  async release(db: Executor, id: string, claimId: string): Promise<boolean> {
    const result = await db
      .updateTable('payment_links')
      .set({ claim_id: null, claimed_until: null })
      .where('id', '=', id)
      .where('claim_id', '=', claimId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Marks an open link paid with its history entry; `claimId` null = whoever holds it (reconciliation). */
  async markPaid(
    db: Executor,
    id: string,
    claimId: string | null,
    fields: { payment_id: string; payment_date: string; payment_value: number; payment_qtty_installments: number; payment_authorization_code: string | null },
    reason: string,
  ): Promise<boolean> {
    let query = db
      .updateTable('payment_links')
      .set({ ...fields, status: LINK_STATUS.paid, claim_id: null, claimed_until: null, updated_at: fields.payment_date })
      .where('id', '=', id)
      .where('status', '=', LINK_STATUS.open);
    if (claimId !== null) query = query.where('claim_id', '=', claimId);
    const result = await query.executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await paymentLinksRepository.addHistory(db, id, LINK_STATUS.paid, reason, fields.payment_date);
    return true;
  },
};
