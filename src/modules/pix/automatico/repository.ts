import type { Selectable } from 'kysely';
import type { Executor } from '../../../db/connection.js';
import type { PixRecurrencesTable, PixRecurringChargesTable } from '../../../db/schema.js';

export type RecurrenceRow = Selectable<PixRecurrencesTable>;
export type RecurringChargeRow = Selectable<PixRecurringChargesTable>;

/** One tentative of a cobr (API Pix `tentativas`): its settlement date and how it ended. */
export interface Tentative {
  date: string;
  status: 'AGENDADA' | 'PAGA' | 'REJEITADA' | 'CANCELADA';
  reason?: string;
}

/** A recurrence the payer may still answer, or cancel. */
const OPEN_RECURRENCE = ['CRIADA', 'APROVADA'];

/** Pix Automático's tables: the recurrences and their cycles' charges. */
export const recurrencesRepository = {
  async insert(db: Executor, row: RecurrenceRow): Promise<void> {
    await db.insertInto('pix_recurrences').values(row).execute();
  },

  find(db: Executor, recurrenceId: string): Promise<RecurrenceRow | undefined> {
    return db.selectFrom('pix_recurrences').selectAll().where('recurrence_id', '=', recurrenceId).executeTakeFirst();
  },

  findByLocation(db: Executor, locationId: string): Promise<RecurrenceRow | undefined> {
    return db.selectFrom('pix_recurrences').selectAll().where('location_id', '=', locationId).executeTakeFirst();
  },

  ofSubscription(db: Executor, subscriptionId: string): Promise<RecurrenceRow | undefined> {
    return db.selectFrom('pix_recurrences').selectAll().where('subscription_id', '=', subscriptionId).executeTakeFirst();
  },

  async ofSubscriptions(db: Executor, subscriptionIds: string[]): Promise<RecurrenceRow[]> {
    if (subscriptionIds.length === 0) return [];
    return db.selectFrom('pix_recurrences').selectAll().where('subscription_id', 'in', [...new Set(subscriptionIds)]).execute();
  },

  /** Conditional move: false when the recurrence was not in one of `from` (a concurrent change won). */
  async transition(db: Executor, recurrenceId: string, from: string[], fields: Partial<RecurrenceRow> & { status: string; updated_at: string }): Promise<boolean> {
    const result = await db.updateTable('pix_recurrences').set(fields).where('recurrence_id', '=', recurrenceId).where('status', 'in', from).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** The creation instant of the oldest recurrence still CRIADA or APROVADA here (undefined: none). */
  async oldestOpen(db: Executor): Promise<string | undefined> {
    const row = await db.selectFrom('pix_recurrences').select('created_at').where('status', 'in', OPEN_RECURRENCE).orderBy('created_at').limit(1).executeTakeFirst();
    return row?.created_at;
  },

  /** Of these idRecs, the ones still open here, with their status (one statement for a page of a list). */
  async openAmong(db: Executor, recurrenceIds: string[]): Promise<Map<string, string>> {
    if (recurrenceIds.length === 0) return new Map();
    const rows = await db.selectFrom('pix_recurrences').select(['recurrence_id', 'status']).where('recurrence_id', 'in', recurrenceIds).where('status', 'in', OPEN_RECURRENCE).execute();
    return new Map(rows.map((r) => [r.recurrence_id, r.status]));
  },

  /** The creation instant of the oldest cycle charge still ATIVA here (undefined: none). */
  async oldestOpenCharge(db: Executor): Promise<string | undefined> {
    const row = await db.selectFrom('pix_recurring_charges').select('created_at').where('status', '=', 'ATIVA').orderBy('created_at').limit(1).executeTakeFirst();
    return row?.created_at;
  },

  /** Of these txids, the charges still ATIVA here, with the refused tentatives recorded. */
  async openChargesAmong(db: Executor, txids: string[]): Promise<Map<string, number>> {
    if (txids.length === 0) return new Map();
    const rows = await db.selectFrom('pix_recurring_charges').select(['txid', 'retries']).where('txid', 'in', txids).where('status', '=', 'ATIVA').execute();
    return new Map(rows.map((r) => [r.txid, Number(r.retries)]));
  },

  async setOutcome(db: Executor, recurrenceId: string, outcome: string, at: string): Promise<void> {
    await db.updateTable('pix_recurrences').set({ next_outcome: outcome, updated_at: at }).where('recurrence_id', '=', recurrenceId).execute();
  },

  async insertCharge(db: Executor, row: RecurringChargeRow): Promise<void> {
    await db.insertInto('pix_recurring_charges').values(row).execute();
  },

  findCharge(db: Executor, txid: string): Promise<RecurringChargeRow | undefined> {
    return db.selectFrom('pix_recurring_charges').selectAll().where('txid', '=', txid).executeTakeFirst();
  },

  chargeOfBilling(db: Executor, billingId: string): Promise<RecurringChargeRow | undefined> {
    return db.selectFrom('pix_recurring_charges').selectAll().where('billing_id', '=', billingId).executeTakeFirst();
  },

  chargesOf(db: Executor, recurrenceId: string): Promise<RecurringChargeRow[]> {
    return db.selectFrom('pix_recurring_charges').selectAll().where('recurrence_id', '=', recurrenceId).orderBy('due_date').execute();
  },

  /** Fenced by the status and tentative count read: false when another run moved it first. */
  async updateCharge(db: Executor, row: Pick<RecurringChargeRow, 'txid' | 'status' | 'retries'>, fields: Partial<RecurringChargeRow> & { updated_at: string }): Promise<boolean> {
    const result = await db
      .updateTable('pix_recurring_charges')
      .set(fields)
      .where('txid', '=', row.txid)
      .where('status', '=', row.status)
      .where('retries', '=', row.retries)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** A recurrence ended: its charges still to settle are cancelled (the PSP sends no more). */
  async cancelOpenCharges(db: Executor, recurrenceId: string, at: string): Promise<void> {
    await db.updateTable('pix_recurring_charges').set({ status: 'CANCELADA', updated_at: at }).where('recurrence_id', '=', recurrenceId).where('status', '=', 'ATIVA').execute();
  },
};

export const tentativesOf = (row: Pick<RecurringChargeRow, 'attempts'>): Tentative[] => JSON.parse(row.attempts) as Tentative[];
