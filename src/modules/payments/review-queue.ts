import { sql } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { PaymentRow } from './repository.js';

/**
 * The operator's review queue: every merchant's payments held by anti-fraud review
 * (status Blocked, the only status PaymentService.review decides on), oldest first. The
 * dashboard may not query this module's tables, so it reads them through PaymentService.
 */
export const REVIEW_COLUMNS = [
  'payment_id', 'merchant_id', 'account_number', 'created_at', 'amount', 'installments', 'brand', 'masked_card_number',
  'reference_transaction', 'antifraud_score', 'antifraud_reasons',
] as const;
export type ReviewRow = Pick<PaymentRow, (typeof REVIEW_COLUMNS)[number]>;

/** Keyset: the last row of the previous page (oldest first). */
export interface ReviewAfter {
  at: string;
  id: string;
}

/**
 * `limit` Blocked payments after the keyset, oldest first. The status is written as a literal
 * (not a bound parameter) so both engines match migration 0017's partial index
 * (created_at, payment_id) WHERE status = 'Blocked': SQLite uses a partial index only when the
 * query's term is the index's own text. A page is one range of that small index, however many
 * payments the table holds; no offset, no count.
 */
export function reviewQueuePage(db: Executor, after: ReviewAfter | undefined, limit: number): Promise<ReviewRow[]> {
  let q = db.selectFrom('payments').select(REVIEW_COLUMNS).where(sql<boolean>`status = 'Blocked'`);
  if (after) {
    q = q.where('created_at', '>=', after.at).where((eb) => eb.or([eb('created_at', '>', after.at), eb.and([eb('created_at', '=', after.at), eb('payment_id', '>', after.id)])]));
  }
  return q.orderBy('created_at').orderBy('payment_id').limit(limit).execute();
}
