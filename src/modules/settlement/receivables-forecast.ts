import { sql } from 'kysely';
import type { Executor } from '../../db/connection.js';
import { daysBetween } from '../../domain/calendar.js';
import { prepaymentCost } from '../../domain/fees.js';

/**
 * Read-only queries of the merchant dashboard over receivables: the money expected
 * per day and what a prepayment of everything would give now. The dashboard reads them through
 * SettlementService (a module's tables are queried only by that module).
 */

/** Open approved installments expected per day (ten-thousandths of a real). */
export interface ExpectedDay {
  date: string;
  count: number;
  /** Sum of received_value (what the merchant will be paid), 10,4 scaled integer. */
  value: bigint;
}

/** What `POST /api/prepayments {all: true}` would anticipate now, without doing it. */
export interface PrepaymentQuote {
  receivedDate: string;
  count: number;
  /** Net of the installments (before the discount), the discount, and what would be received; 10,4 scaled integers. */
  net: bigint;
  discount: bigint;
  received: bigint;
}

const big = (v: unknown): bigint => BigInt(String(v ?? 0));

export const outlookReads = {
  /**
   * Open, approved installments by expected day in [from, to]. receipt_date equals
   * expected_date while an installment is open, so this is one range of
   * receivables_open_idx (migration 0015: the open approved installments only, covering;
   * the status conditions are literals so that the planner may use that partial index).
   */
  async expectedPerDay(db: Executor, account: number, from: string, to: string): Promise<ExpectedDay[]> {
    const rows = await db
      .selectFrom('receivables')
      .select(['receipt_date', sql<string | number>`count(*)`.as('n'), sql<string | number>`sum(received_value)`.as('value')])
      .where('account_number', '=', account)
      .where('receipt_date', '>=', from)
      .where('receipt_date', '<=', to)
      .where(sql.ref('received_status'), '=', sql.lit('A'))
      .where(sql.ref('installment_status'), '=', sql.lit('A'))
      .groupBy('receipt_date')
      .orderBy('receipt_date')
      .execute();
    return rows.map((r) => ({ date: r.receipt_date, count: Number(r.n), value: big(r.value) }));
  },

  /**
   * The prepayment of every open regular installment due after `target`, priced as
   * SettlementService.prepay prices it (netOf, then prepaymentCost at the days to each date).
   * Read as one sum of nets per date, in the order of receivables_open_idx (migration 0015:
   * covering, no sort, a few hundred groups however many installments are open): the discount
   * is priced on each date's total net, where prepay rounds each installment's cost to the
   * ten-thousandth, so the two may differ by up to half a ten-thousandth of a real per
   * installment (a cent per 200 installments at worst). Grouping by (date, net) would be exact,
   * but it makes one group per distinct net, so its cost grows with the open installments
   * instead of the dates: seconds for an account with millions of them.
   */
  async prepaymentQuote(db: Executor, account: number, target: string, monthlyRate: bigint): Promise<PrepaymentQuote> {
    // netOf: a net below zero counts as zero (rare: fees above an installment's value).
    const net = sql<string | number>`sum(case when installment_value - mdr_value - trn_fee_installment - af_fee_installment > 0 then installment_value - mdr_value - trn_fee_installment - af_fee_installment else 0 end)`;
    const rows = await db
      .selectFrom('receivables')
      .select(['receipt_date', net.as('net'), sql<string | number>`count(*)`.as('n')])
      .where('account_number', '=', account)
      .where('receipt_date', '>', target)
      .where(sql.ref('received_status'), '=', sql.lit('A'))
      .where(sql.ref('installment_status'), '=', sql.lit('A'))
      .where('received_type', '=', 'R')
      .groupBy('receipt_date')
      .execute();
    const quote: PrepaymentQuote = { receivedDate: target, count: 0, net: 0n, discount: 0n, received: 0n };
    for (const r of rows) {
      const total = big(r.net);
      const cost = prepaymentCost(total, monthlyRate, daysBetween(target, r.receipt_date));
      quote.count += Number(r.n);
      quote.net += total;
      quote.discount += cost;
      quote.received += total - cost;
    }
    return quote;
  },

  /** A sale's installments (receivables_source_idx), only when they are the account's. */
  ofSource(db: Executor, account: number, sourceId: string) {
    return db.selectFrom('receivables').selectAll().where('source_id', '=', sourceId).where('account_number', '=', account).orderBy('installment_number').execute();
  },
};
