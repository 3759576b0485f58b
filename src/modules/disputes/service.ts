import type { Clock } from '../../clock.js';
import type { Database, Executor } from '../../db/connection.js';
import { sandboxDelete, type ResetCounts, type ResetExecutor } from '../../db/sandbox-reset.js';
import { addDays, isIsoDate, toIsoDate } from '../../domain/calendar.js';
import { conflict, invalid, notFound } from '../../domain/errors.js';
import { paging, type ListEnvelope } from '../../http/listing.js';
import { timeOrderedUuid } from '../../ids.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { DataCipher } from '../../security/data-cipher.js';
import type { PaymentService } from '../payments/service.js';
import type { SettlementService } from '../settlement/service.js';
import { recordNotifications, type AccountEvent, type BusinessEvent } from '../webhooks/outbox.js';
import { newDisputeRow, summaryOf, transactionStatus, type ChargebackNotice } from './dispute-rows.js';
import { checkEvidence } from './evidence.js';
import { MED_REASON_CODES, reasonOf } from './reason-codes.js';
import { disputesRepository, OPEN_STATUSES, type DisputeRow, type DisputeSortColumn } from './repository.js';
import type { DisputeQuery, DisputeResult, DisputeStatus, DisputeSummary, EvidenceBody } from './schemas.js';

const SORTABLE: Record<string, DisputeSortColumn> = { createdDate: 'created_at', createdAt: 'created_at', respondBy: 'respond_by', amount: 'amount', status: 'status' };

/** The associated data a dispute file's content is sealed with: bound to its own row. */
export const disputeFileAd = (fileId: string) => `dispute_file:${fileId}`;

/** A MED claim decided against the merchant, as the Pix side is told of it. */
export interface LostMedClaim {
  chargeId: string;
  disputeId: string;
  nature: 'MED_OPERACIONAL' | 'MED_FRAUDE';
  at: string;
}

/** The Pix side of MED claims (the pix module's PixMedClaims), declared here so that this module does not import it. */
export interface PixClaims {
  find(trx: Executor, chargeId: string, lock: boolean): Promise<{ id: string; merchant_id: string; account_number: number; status: string; nsu: string; cod_auth: string; med_dispute_id: string | null; claimable: number } | undefined>;
  block(trx: Executor, chargeId: string, disputeId: string, amount: number): Promise<boolean>;
  release(trx: Executor, chargeId: string, disputeId: string): Promise<void>;
  /** Lost or accepted: nothing is sent; the hold stays until the PSP's MED return is reflected (`medReturned`). */
  awaitReturn(trx: Executor, claim: LostMedClaim): Promise<void>;
  /** After the decision's commit (the sandbox PSP makes its return then). */
  afterLost(claim: LostMedClaim): Promise<void>;
}

export interface DisputeDeps {
  database: Database;
  clock: Clock;
  queue: JobQueue;
  cipher: DataCipher;
  payments: Pick<PaymentService, 'disputes'>;
  settlement: Pick<SettlementService, 'holdForDispute' | 'releaseDispute' | 'chargeBack'>;
  pix: PixClaims;
}

/**
 * Disputes (chargebacks): registered as the acquirer reports them, answered by the merchant
 * (evidence, or acceptance), decided by the card network (the operator records it). The money
 * follows in the seed's terms: the payment's installments are blocked (B) while the dispute is
 * open, approved again (A) when it is won, and when it is lost or accepted the disputed amount
 * is the merchant's to give back (settlement's chargeBack), cancelling the payment (C) when it
 * takes what was left of it. Each change commits with its notifications: the TransactionStatus
 * webhook and the dispute.* events.
 */
export class DisputeService {
  constructor(private readonly deps: DisputeDeps) {}

  private today(): string {
    return toIsoDate(this.deps.clock.now());
  }

  private lock(): boolean {
    return this.deps.database.dialect === 'postgres';
  }

  async register(notice: ChargebackNotice): Promise<DisputeResult> {
    if (notice.pixChargeId !== undefined || notice.paymentId === undefined) return this.registerMed(notice);
    const { database, clock, payments, settlement } = this.deps;
    const now = clock.now();
    const at = now.toISOString();
    const row = await database.db.transaction().execute(async (trx) => {
      const payment = await payments.disputes.find(trx, notice.paymentId!, this.lock());
      if (!payment) throw notFound('Payment');
      if (payment.status !== 'Authorized' && payment.status !== 'Paid') throw conflict(`A payment in status ${payment.status} cannot be disputed; only Authorized or Paid ones can.`, 'status');
      if (payment.open_dispute_id) throw conflict(`Dispute ${payment.open_dispute_id} of this payment is still open.`, 'status');
      const reason = reasonOf(payment.brand, notice.reasonCode);
      if (!reason) throw invalid('reasonCode', `${notice.reasonCode} is not a ${payment.brand} chargeback reason code.`);
      const left = Number(payment.amount) - Number(payment.refunded_amount) - Number(payment.charged_back_amount);
      const amount = notice.amount ?? left;
      if (amount > left) throw invalid('amount', `amount (${amount}) is more than what is left of this payment (${left} cents).`);
      const row = newDisputeRow(now, notice, {
        type: 'chargeback',
        payment_id: payment.payment_id,
        merchant_id: payment.merchant_id,
        account_number: payment.account_number,
        brand: payment.brand,
        amount,
      });
      // The issuer took the fraud liability of an authenticated sale: a fraud chargeback of it is theirs.
      row.liability_shift = reason.fraud && payment.liabilityShift ? 1 : 0;
      const respondBy = row.respond_by;
      await disputesRepository.insert(trx, row);
      if (!(await payments.disputes.open(trx, payment.payment_id, row.dispute_id))) throw conflict('The payment changed meanwhile; no dispute was registered.', 'status');
      await settlement.holdForDispute(trx, payment.payment_id);
      await this.notify(trx, row, transactionStatus(row, payment, payment.status, 'Blocked', at), 'dispute.created', { status: row.status, reasonCode: row.reason_code, reasonMessage: reason.message, amount, respondBy });
      return row;
    });
    return { ...summaryOf(row), evidence: [] };
  }

  /**
   * A MED claim against a received Pix (type pix_med), as the payer's PSP opens it: the claimed
   * amount (by default what is left of the Pix) is held on the charge and its receivable blocked.
   */
  private async registerMed(notice: ChargebackNotice): Promise<DisputeResult> {
    const { database, clock, pix } = this.deps;
    if (notice.paymentId !== undefined && notice.pixChargeId !== undefined) throw invalid('pixChargeId', 'Name either paymentId (a chargeback) or pixChargeId (a MED claim), not both.');
    if (notice.pixChargeId === undefined) throw invalid('paymentId', 'paymentId (a chargeback) or pixChargeId (a MED claim) is required.');
    const chargeId = notice.pixChargeId;
    const now = clock.now();
    const at = now.toISOString();
    const row = await database.db.transaction().execute(async (trx) => {
      const charge = await pix.find(trx, chargeId, this.lock());
      if (!charge) throw notFound('Pix charge');
      if (charge.status !== 'Paid') throw conflict(`A Pix charge in status ${charge.status} cannot be claimed; only a Paid one can.`, 'status');
      if (charge.med_dispute_id) throw conflict(`Dispute ${charge.med_dispute_id} of this charge is still open.`, 'status');
      const reason = MED_REASON_CODES[notice.reasonCode];
      if (!reason || !Object.hasOwn(MED_REASON_CODES, notice.reasonCode)) throw invalid('reasonCode', `${notice.reasonCode} is not a MED reason code (FR01 fraud, BE08 operational failure).`);
      const amount = notice.amount ?? charge.claimable;
      if (amount < 1 || amount > charge.claimable) throw invalid('amount', `amount (${amount}) must be between 1 and what is left of this Pix (${charge.claimable} cents).`);
      const row = newDisputeRow(now, notice, {
        type: 'pix_med',
        payment_id: charge.id,
        merchant_id: charge.merchant_id,
        account_number: charge.account_number,
        brand: 'PIX',
        amount,
      });
      const respondBy = row.respond_by;
      await disputesRepository.insert(trx, row);
      if (!(await pix.block(trx, charge.id, row.dispute_id, amount))) throw conflict('The charge changed meanwhile; no claim was registered.', 'status');
      await this.notify(trx, row, transactionStatus(row, { nsu: charge.nsu, authorization_code: charge.cod_auth }, 'Paid', 'Blocked', at), 'dispute.created', { status: row.status, reasonCode: row.reason_code, reasonMessage: reason.message, amount, respondBy });
      return row;
    });
    return { ...summaryOf(row), evidence: [] };
  }

  async list(merchantId: string, query: DisputeQuery): Promise<ListEnvelope<DisputeSummary>> {
    if (query.startDate && query.endDate && query.startDate > query.endDate) throw invalid('query.endDate', 'query.endDate must not be before query.startDate.');
    for (const [tag, value] of [['query.startDate', query.startDate], ['query.endDate', query.endDate]] as const) {
      if (value !== undefined && !isIsoDate(value)) throw invalid(tag, `${tag} must be a date (YYYY-MM-DD).`);
    }
    const p = paging(query, SORTABLE);
    const filter = {
      merchantId,
      status: query.status,
      createdFrom: query.startDate && `${query.startDate}T00:00:00.000Z`,
      createdBefore: query.endDate && `${addDays(query.endDate, 1)}T00:00:00.000Z`,
    };
    const { rows, total } = await disputesRepository.list(this.deps.database.db, filter, p);
    return { items: rows.map(summaryOf), page: p.page, limit: p.limit, total };
  }

  /**
   * The dashboards' list, deadline first: every open dispute by respondBy, then the latest
   * `closedLimit` closed ones. One merchant's, or (no merchantId: the operator) every merchant's.
   */
  async deadlineFirst(merchantId: string | undefined, closedLimit = 50): Promise<(DisputeSummary & { merchantId: string })[]> {
    const rows = await disputesRepository.byDeadline(this.deps.database.db, merchantId, closedLimit);
    return rows.map((row) => ({ ...summaryOf(row), merchantId: row.merchant_id }));
  }

  /** The MED claims (pix_med disputes) against one of the merchant's Pix charges, open or closed, newest first: the dashboard's Pix page. */
  async ofPixCharge(merchantId: string, chargeId: string): Promise<DisputeSummary[]> {
    return (await disputesRepository.ofPayment(this.deps.database.db, merchantId, 'pix_med', chargeId)).map(summaryOf);
  }

  async get(merchantId: string | undefined, disputeId: string): Promise<DisputeResult> {
    const db = this.deps.database.db;
    const row = await disputesRepository.find(db, disputeId, merchantId);
    if (!row) throw notFound('Dispute');
    const { evidence, files } = await disputesRepository.evidenceOf(db, disputeId);
    return {
      ...summaryOf(row),
      evidence: evidence.map((e) => ({
        evidenceId: e.evidence_id,
        text: e.text,
        files: files.filter((f) => f.evidence_id === e.evidence_id).map((f) => ({ fileId: f.file_id, fileName: f.file_name, contentType: f.content_type, size: Number(f.size_bytes), sha256: f.sha256 })),
        createdAt: e.created_at,
      })),
    };
  }

  /** The merchant's evidence: checked whole first (nothing stored on a 400), files sealed under DATA_KEY. */
  async addEvidence(merchantId: string, disputeId: string, body: EvidenceBody): Promise<DisputeResult> {
    const { database, clock, cipher } = this.deps;
    const checked = checkEvidence(body);
    const now = clock.now();
    const at = now.toISOString();
    await database.db.transaction().execute(async (trx) => {
      const row = await disputesRepository.find(trx, disputeId, merchantId);
      if (!row) throw notFound('Dispute');
      if (!OPEN_STATUSES.includes(row.status)) throw conflict(`The dispute is ${row.status}: it takes no more evidence.`, 'status');
      if (toIsoDate(now) > row.respond_by) throw conflict(`Evidence was due by ${row.respond_by}.`, 'respondBy');
      const evidenceId = timeOrderedUuid(now);
      const files = checked.files.map((f, position) => {
        const fileId = timeOrderedUuid(now);
        return {
          file_id: fileId,
          evidence_id: evidenceId,
          dispute_id: disputeId,
          merchant_id: merchantId,
          position,
          file_name: f.fileName,
          content_type: f.contentType,
          size_bytes: f.sizeBytes,
          sha256: f.sha256,
          content_sealed: cipher.encrypt(f.contentBase64, disputeFileAd(fileId)),
        };
      });
      await disputesRepository.insertEvidence(trx, { evidence_id: evidenceId, dispute_id: disputeId, merchant_id: merchantId, text: checked.text, created_at: at }, files);
      const moved = (await disputesRepository.move(trx, disputeId, OPEN_STATUSES, 'UnderReview', at, false)) ?? row;
      await this.notify(trx, moved, [], 'dispute.updated', { oldStatus: row.status, status: 'UnderReview', evidenceId });
    });
    return this.get(merchantId, disputeId);
  }

  /** The merchant accepts the chargeback: closed as lost. */
  async accept(merchantId: string, disputeId: string): Promise<DisputeResult> {
    await this.close(disputeId, 'Accepted', merchantId);
    return this.get(merchantId, disputeId);
  }

  /** The operator records the card network's decision. */
  async resolve(disputeId: string, outcome: 'won' | 'lost'): Promise<DisputeResult> {
    await this.close(disputeId, outcome === 'won' ? 'Won' : 'Lost');
    return this.get(undefined, disputeId);
  }

  private async close(disputeId: string, to: 'Won' | 'Lost' | 'Accepted', merchantId?: string): Promise<void> {
    const { database, clock, payments, settlement, pix } = this.deps;
    const at = clock.now().toISOString();
    const lostClaim = await database.db.transaction().execute(async (trx): Promise<LostMedClaim | null> => {
      const row = await disputesRepository.find(trx, disputeId, merchantId);
      if (!row) throw notFound('Dispute');
      // A MED claim lost or accepted closes when the PSP's return arrives (medReturned), not now.
      const awaitsReturn = row.type === 'pix_med' && to !== 'Won';
      const moved = await disputesRepository.move(trx, disputeId, OPEN_STATUSES, to, at, !awaitsReturn);
      if (!moved) throw conflict(`The dispute is ${row.status} already.`, 'status');
      if (row.type === 'pix_med') {
        if (awaitsReturn) {
          // Nothing is sent: the PSP makes the MED return itself, from the amount it blocked; the hold stays until then.
          const claim: LostMedClaim = { chargeId: row.payment_id, disputeId, nature: MED_REASON_CODES[row.reason_code]?.nature ?? 'MED_FRAUDE', at };
          await pix.awaitReturn(trx, claim);
          await this.notify(trx, moved, [], 'dispute.updated', { oldStatus: row.status, status: to, awaitingReturn: true });
          return claim;
        }
        const charge = (await pix.find(trx, row.payment_id, this.lock()))!;
        await pix.release(trx, row.payment_id, disputeId);
        await this.notify(trx, moved, transactionStatus(row, { nsu: charge.nsu, authorization_code: charge.cod_auth }, 'Blocked', 'Paid', at), 'dispute.closed', { oldStatus: row.status, status: to, amount: Number(row.amount) });
        return null;
      }
      const before = (await payments.disputes.find(trx, row.payment_id, this.lock()))!;
      let events: AccountEvent[] = [];
      // Lost with the liability shifted, the issuer pays: nothing leaves the merchant's receivables.
      if (to === 'Won' || row.liability_shift) {
        await settlement.releaseDispute(trx, row.payment_id);
        await payments.disputes.close(trx, row.payment_id, disputeId, 0, at);
        events = transactionStatus(row, before, 'Blocked', before.status, at);
      } else {
        const left = Number(before.amount) - Number(before.refunded_amount) - Number(before.charged_back_amount);
        const whole = Number(row.amount) >= left;
        await settlement.chargeBack(trx, row.payment_id, Number(row.amount), whole);
        // Taking what was left, the payment is cancelled as a cancel does it (its own TransactionStatus -> Canceled).
        const after = await payments.disputes.close(trx, row.payment_id, disputeId, Number(row.amount), at);
        if (after.status !== 'Canceled') events = transactionStatus(row, before, 'Blocked', before.status, at);
      }
      await this.notify(trx, moved, events, 'dispute.closed', { oldStatus: row.status, status: to, amount: Number(row.amount) });
      return null;
    });
    if (lostClaim) await pix.afterLost(lostClaim);
  }

  /**
   * The PSP's MED return of a claim was reflected on its charge (the Pix side's transaction):
   * the claim closes, Lost unless the merchant had accepted it, with the return recorded. A claim
   * still open is lost by it: the PSP's return is its decision. Closed already: nothing.
   */
  async medReturned(trx: Executor, disputeId: string, made: { refundId: string; amount: number; at: string; nsu: string; codAuth: string }): Promise<void> {
    const row = await disputesRepository.find(trx, disputeId);
    if (!row || row.type !== 'pix_med' || row.closed_at !== null) return;
    const to = OPEN_STATUSES.includes(row.status) ? 'Lost' : row.status;
    const closed = await disputesRepository.closeWithReturn(trx, disputeId, to, made.refundId, made.at);
    if (!closed) return;
    await this.notify(trx, closed, transactionStatus(row, { nsu: made.nsu, authorization_code: made.codAuth }, 'Blocked', 'Paid', made.at), 'dispute.closed', { oldStatus: row.status, status: to, amount: Number(row.amount), refundId: made.refundId, returnedAmount: made.amount });
  }

  private notify(trx: Executor, row: DisputeRow, events: AccountEvent[], type: 'dispute.created' | 'dispute.updated' | 'dispute.closed', data: Record<string, unknown>): Promise<void> {
    const event: BusinessEvent = { merchantId: row.merchant_id, accountNumber: Number(row.account_number), type, at: row.updated_at, data: { disputeId: row.dispute_id, type: row.type, ...(row.type === 'pix_med' ? { pixChargeId: row.payment_id } : { paymentId: row.payment_id }), ...data } };
    return recordNotifications(trx, this.deps.queue, events, [], [event]);
  }

  /** Sandbox reset (src/modules/sandbox/reset-service.ts): this module's rows, every merchant's or one's. */
  async resetSandboxData(executor: ResetExecutor, merchantId?: string): Promise<ResetCounts> {
    return {
      dispute_files: await sandboxDelete(executor, 'dispute_files', merchantId),
      dispute_evidence: await sandboxDelete(executor, 'dispute_evidence', merchantId),
      disputes: await sandboxDelete(executor, 'disputes', merchantId),
    };
  }
}
