import { sql } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { PaymentStatus } from '../../domain/lifecycles.js';
import type { PaymentRow } from './repository.js';

/**
 * Read-only queries of the merchant dashboard: a filtered, keyset-paged list, the
 * per-hour totals its charts are made of, and a payment's events. The dashboard module may not
 * query this module's tables, so it reads them through PaymentService, which calls these.
 */

/** The columns a list row shows: never the fingerprint, the customer or any card data beyond the mask. */
export const LIST_COLUMNS = [
  'payment_id', 'created_at', 'reference_transaction', 'amount', 'installments', 'status', 'return_code', 'masked_card_number', 'brand',
] as const;
export type PaymentListRow = Pick<PaymentRow, (typeof LIST_COLUMNS)[number]>;

export interface PaymentFilter {
  /** Half-open ISO bounds on created_at. */
  from: string;
  to: string;
  status?: PaymentStatus;
  reference?: string;
  /** The card's last four digits. */
  lastFour?: string;
  /** Keyset: the last row of the previous page (newest first). */
  after?: { at: string; id: string };
}

/** One day's figures for the dashboard's charts; what counts is said at dayFigures. */
export interface DayFigures {
  date: string;
  /** Cents of the payments that stand sold: Authorized (approved and captured) or Paid. */
  sales: bigint;
  /** Payments the acquirer approved (return code 00: Authorized, Paid, Blocked for review, cancelled later). */
  approved: number;
  /** Payments with a decision (any status but Pending). */
  decided: number;
}

/** Day queries of dayFigures running at the same time. */
const DAY_LANES = 4;

const big = (v: unknown): bigint => BigInt(String(v ?? 0));

export const paymentReads = {
  /**
   * Newest first, `limit` rows after the keyset. A range scan of (merchant_id, created_at ...)
   * backwards (migration 0015's index), never an offset nor a count: the price of a page does
   * not grow with the account. The reference filter goes through payments_reference_idx.
   */
  page(db: Executor, merchantId: string, f: PaymentFilter, limit: number): Promise<PaymentListRow[]> {
    let q = db
      .selectFrom('payments')
      .select(LIST_COLUMNS)
      .where('merchant_id', '=', merchantId)
      .where('created_at', '>=', f.from)
      .where('created_at', '<', f.to);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.reference) q = q.where('reference_transaction', '=', f.reference);
    // The mask keeps the last four digits at its end (411111******1111).
    if (f.lastFour) q = q.where('masked_card_number', 'like', `%${f.lastFour}`);
    const after = f.after;
    if (after) {
      q = q.where('created_at', '<=', after.at).where((eb) => eb.or([eb('created_at', '<', after.at), eb.and([eb('created_at', '=', after.at), eb('payment_id', '<', after.id)])]));
    }
    return q.orderBy('created_at', 'desc').orderBy('payment_id', 'desc').limit(limit).execute();
  },

  /**
   * Per day (half-open ISO bounds each), with conditional sums: one range of the covering index
   * of migration 0015 (merchant_id, created_at, status, return_code, amount) per day, no table
   * row read and no sort (a GROUP BY on the day would sort every row of the range).
   */
  async dayFigures(db: Executor, merchantId: string, days: { date: string; from: string; to: string }[]): Promise<DayFigures[]> {
    const one = async (day: { date: string; from: string; to: string }): Promise<DayFigures> => {
      const r = await db
        .selectFrom('payments')
        .select([
          sql<string | number | null>`sum(case when status = 'Authorized' or status = 'Paid' then amount end)`.as('sales'),
          sql<string | number>`count(case when return_code = '00' then 1 end)`.as('approved'),
          sql<string | number>`count(case when status <> 'Pending' then 1 end)`.as('decided'),
        ])
        .where('merchant_id', '=', merchantId)
        .where('created_at', '>=', day.from)
        .where('created_at', '<', day.to)
        .executeTakeFirstOrThrow();
      return { date: day.date, sales: big(r.sales), approved: Number(r.approved), decided: Number(r.decided) };
    };
    // At most DAY_LANES days are read at once: on PostgreSQL each lane is a pool connection (the
    // month is read about that many times faster), never the whole pool; SQLite runs them in turn.
    const out = new Array<DayFigures>(days.length);
    let next = 0;
    const lane = async () => {
      for (let i = next++; i < days.length; i = next++) out[i] = await one(days[i]);
    };
    await Promise.all(Array.from({ length: Math.min(DAY_LANES, days.length) }, lane));
    return out;
  },

  /** Denied payments by return code over a range (59: anti-fraud's refusal; 96: a failure), most frequent first. */
  async declines(db: Executor, merchantId: string, from: string, to: string): Promise<{ returnCode: string; count: number }[]> {
    const rows = await db
      .selectFrom('payments')
      .select(['return_code', sql<string | number>`count(*)`.as('n')])
      .where('merchant_id', '=', merchantId)
      .where('created_at', '>=', from)
      .where('created_at', '<', to)
      // A literal, not a parameter: only then may the planner read the partial index of migration 0015 (status = 'Denied').
      .where(sql.ref('status'), '=', sql.lit('Denied'))
      .groupBy('return_code')
      .execute();
    return rows
      .map((r) => ({ returnCode: r.return_code ?? '-', count: Number(r.n) }))
      .sort((a, b) => b.count - a.count || a.returnCode.localeCompare(b.returnCode));
  },

  /** A payment's status changes, oldest first (payment_events_payment_idx). */
  events(db: Executor, merchantId: string, paymentId: string) {
    return db
      .selectFrom('payment_events')
      .select(['old_status', 'new_status', 'occurred_at'])
      .where('payment_id', '=', paymentId)
      .where('merchant_id', '=', merchantId)
      .orderBy('id')
      .execute();
  },
};

/** A CPF or CNPJ as a page may show it: only the middle digits (***.982.247-** / **.222.333/0001-**). */
export function maskDocument(document: string | null | undefined): string | null {
  if (!document) return null;
  const d = document.replace(/[^0-9A-Za-z]/g, '');
  if (d.length === 11) return `***.${d.slice(3, 6)}.${d.slice(6, 9)}-**`;
  if (d.length === 14) return `**.${d.slice(2, 5)}.${d.slice(5, 8)}/${d.slice(8, 12)}-**`;
  return d.length > 4 ? `${'*'.repeat(d.length - 4)}${d.slice(-4)}` : '****';
}
