import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { DisputeEvidenceTable, DisputeFilesTable, DisputesTable } from '../../db/schema.js';
import { assertTransitions, OPEN_DISPUTE_STATUSES, sourcesOf, type DisputeStatus } from '../../domain/lifecycles.js';
import type { Paging } from '../../http/listing.js';

export type DisputeRow = Selectable<DisputesTable>;
export type EvidenceRow = Selectable<DisputeEvidenceTable>;
/** A file as listed: never its content. */
export type FileInfo = Omit<Selectable<DisputeFilesTable>, 'content_sealed'>;
export type DisputeSortColumn = 'created_at' | 'respond_by' | 'amount' | 'status';

export interface DisputeFilter {
  merchantId: string;
  status?: DisputeStatus;
  /** Inclusive bounds on created_at (ISO datetimes). */
  createdFrom?: string;
  createdBefore?: string;
}

export const OPEN_STATUSES: readonly DisputeStatus[] = OPEN_DISPUTE_STATUSES;

export const disputesRepository = {
  async insert(db: Executor, row: Insertable<DisputesTable>): Promise<void> {
    await db.insertInto('disputes').values(row).execute();
  },

  /** A dispute, the merchant's only when `merchantId` is given (another's is not found). */
  find(db: Executor, disputeId: string, merchantId?: string): Promise<DisputeRow | undefined> {
    let query = db.selectFrom('disputes').selectAll().where('dispute_id', '=', disputeId);
    if (merchantId !== undefined) query = query.where('merchant_id', '=', merchantId);
    return query.executeTakeFirst();
  },

  async list(db: Executor, filter: DisputeFilter, paging: Paging<DisputeSortColumn>): Promise<{ rows: DisputeRow[]; total: number }> {
    let query = db.selectFrom('disputes').where('merchant_id', '=', filter.merchantId);
    if (filter.status) query = query.where('status', '=', filter.status);
    if (filter.createdFrom) query = query.where('created_at', '>=', filter.createdFrom);
    if (filter.createdBefore) query = query.where('created_at', '<', filter.createdBefore);
    const rows = await query.selectAll().orderBy(paging.orderColumn, paging.direction).orderBy('dispute_id', paging.direction).limit(paging.limit).offset(paging.offset).execute();
    const { total } = await query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
    return { rows, total: Number(total) };
  },

  /** The disputes of one payment or Pix charge (`type`), the merchant's, newest first. */
  ofPayment(db: Executor, merchantId: string, type: 'chargeback' | 'pix_med', paymentId: string): Promise<DisputeRow[]> {
    return db.selectFrom('disputes').selectAll().where('payment_id', '=', paymentId).where('type', '=', type).where('merchant_id', '=', merchantId).orderBy('created_at', 'desc').orderBy('dispute_id', 'desc').execute();
  },

  /**
   * Deadline first, for the dashboards: the open disputes by respondBy (the nearest first), then
   * the latest closed ones; one merchant's when `merchantId` is given, else every merchant's.
   */
  async byDeadline(db: Executor, merchantId: string | undefined, closedLimit: number): Promise<DisputeRow[]> {
    let open = db.selectFrom('disputes').selectAll().where('status', 'in', [...OPEN_STATUSES]);
    let closed = db.selectFrom('disputes').selectAll().where('status', 'not in', [...OPEN_STATUSES]);
    if (merchantId !== undefined) {
      open = open.where('merchant_id', '=', merchantId);
      closed = closed.where('merchant_id', '=', merchantId);
    }
    const [openRows, closedRows] = await Promise.all([
      open.orderBy('respond_by', 'asc').orderBy('created_at', 'asc').orderBy('dispute_id', 'asc').execute(),
      // A MED claim decided but awaiting the PSP's return has no closed_at yet: it sorts by its decision, on both engines.
      closed.orderBy(sql`coalesce(closed_at, updated_at)`, 'desc').orderBy('dispute_id', 'desc').limit(closedLimit).execute(),
    ]);
    return [...openRows, ...closedRows];
  },

  /**
   * Moves an open dispute to `to`; undefined when it was no longer in `from` (a concurrent change
   * won). Each state of `from` must move to `to` in the disputes table (IllegalTransition otherwise).
   */
  move(db: Executor, disputeId: string, from: readonly DisputeStatus[], to: DisputeStatus, at: string, closed: boolean): Promise<DisputeRow | undefined> {
    assertTransitions('disputes', from, to);
    return db
      .updateTable('disputes')
      .set({ status: to, updated_at: at, ...(closed ? { closed_at: at } : {}) })
      .where('dispute_id', '=', disputeId)
      .where('status', 'in', [...from])
      .returningAll()
      .executeTakeFirst();
  },

  /**
   * Closes a MED claim with the PSP's return (`refundId`); undefined when it was closed already.
   * From an open state, or from `to` itself (decided, awaiting the return).
   */
  closeWithReturn(db: Executor, disputeId: string, to: DisputeStatus, refundId: string, at: string): Promise<DisputeRow | undefined> {
    return db
      .updateTable('disputes')
      .set({ status: to, refund_id: refundId, updated_at: at, closed_at: at })
      .where('dispute_id', '=', disputeId)
      .where('closed_at', 'is', null)
      .where('status', 'in', [to, ...sourcesOf('disputes', to)])
      .returningAll()
      .executeTakeFirst();
  },

  async insertEvidence(db: Executor, evidence: Insertable<DisputeEvidenceTable>, files: Insertable<DisputeFilesTable>[]): Promise<void> {
    await db.insertInto('dispute_evidence').values(evidence).execute();
    if (files.length > 0) await db.insertInto('dispute_files').values(files).execute();
  },

  async evidenceOf(db: Executor, disputeId: string): Promise<{ evidence: EvidenceRow[]; files: FileInfo[] }> {
    const evidence = await db.selectFrom('dispute_evidence').selectAll().where('dispute_id', '=', disputeId).orderBy('created_at').orderBy('evidence_id').execute();
    const files = await db
      .selectFrom('dispute_files')
      .select(['file_id', 'evidence_id', 'dispute_id', 'merchant_id', 'position', 'file_name', 'content_type', 'size_bytes', 'sha256'])
      .where('dispute_id', '=', disputeId)
      .orderBy('evidence_id')
      .orderBy('position')
      .execute();
    return { evidence, files };
  },
};
