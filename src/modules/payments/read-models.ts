import { readDatabase, type Database } from '../../db/connection.js';
import { notFound } from '../../domain/errors.js';
import { toPaymentResult } from './payment-row.js';
import { maskDocument, paymentReads, type DayFigures, type PaymentFilter, type PaymentListRow } from './dashboard-queries.js';
import { paymentsRepository, type PaymentRow } from './repository.js';
import { reviewQueuePage, type ReviewAfter, type ReviewRow } from './review-queue.js';
import type { PaymentResult } from './schemas.js';

/** A payment as another module reads it by its reference (a payment link's checkout payments). */
export type ReferencedPayment = Pick<PaymentRow, 'payment_id' | 'status' | 'amount' | 'installments' | 'authorization_code' | 'brand' | 'masked_card_number'>;

/** What the dashboard's payment page shows beyond the API's answer: no card data beyond the mask. */
export interface PaymentDetail {
  payment: PaymentResult;
  accountNumber: number;
  antiFraudReasons: string[];
  customer: { name: string | null; document: string | null } | null;
  events: { oldStatus: string; newStatus: string; at: string }[];
}

/**
 * The payments as the dashboard and the payment links read them: no API lists payments, and
 * no other module may query this module's tables, so they read through these. The dashboard's
 * list and charts decide nothing: they read from the replica (DATABASE_READ_URL) when it is
 * usable; a payment's page, the review queue and the links' payments stay on the primary.
 */
export class PaymentReadModels {
  constructor(private readonly database: Database) {}

  /** The operator's review queue: Blocked payments of every merchant, oldest first, keyset-paged. */
  reviewQueue(after: ReviewAfter | undefined, limit: number): Promise<ReviewRow[]> {
    return reviewQueuePage(this.database.db, after, limit);
  }

  /** The merchant's payments made under `reference` (a payment link's `paymentlink:<id>`), newest first. */
  listByReference(merchantId: string, reference: string): Promise<ReferencedPayment[]> {
    return paymentsRepository.byReference(this.database.db, merchantId, reference);
  }

  /** The dashboard's payment list: the merchant's payments matching the filter, newest first, keyset-paged. */
  search(merchantId: string, filter: PaymentFilter, limit: number): Promise<PaymentListRow[]> {
    return paymentReads.page(readDatabase(this.database).db, merchantId, filter, limit);
  }

  /** The dashboard's charts: sales, approvals and decisions per day (half-open ISO bounds each). */
  dayFigures(merchantId: string, days: { date: string; from: string; to: string }[]): Promise<DayFigures[]> {
    return paymentReads.dayFigures(readDatabase(this.database).db, merchantId, days);
  }

  /** The dashboard's declines chart: Denied payments by return code over a range. */
  declines(merchantId: string, from: string, to: string): Promise<{ returnCode: string; count: number }[]> {
    return paymentReads.declines(readDatabase(this.database).db, merchantId, from, to);
  }

  /**
   * The dashboard's payment page: the API's answer plus the anti-fraud reasons, the customer's
   * name and masked document, and the status changes. Another merchant's id is 404.
   */
  async detail(merchantId: string, paymentId: string): Promise<PaymentDetail> {
    const db = this.database.db;
    const row = await paymentsRepository.find(db, paymentId, merchantId);
    if (!row) throw notFound('Payment');
    const customer = row.customer ? (JSON.parse(row.customer) as { firstName?: string; lastName?: string; documentNumber?: string }) : null;
    const name = customer ? [customer.firstName, customer.lastName].filter(Boolean).join(' ') || null : null;
    const events = await paymentReads.events(db, merchantId, paymentId);
    return {
      payment: toPaymentResult(row),
      accountNumber: Number(row.account_number),
      antiFraudReasons: JSON.parse(row.antifraud_reasons) as string[],
      customer: customer && { name, document: maskDocument(customer.documentNumber) },
      events: events.map((e) => ({ oldStatus: e.old_status, newStatus: e.new_status, at: e.occurred_at })),
    };
  }
}
