import { randomUUID } from 'node:crypto';
import { readDatabase } from '../../db/connection.js';
import { addDays, startOfDay, toIsoDate } from '../../domain/calendar.js';
import { conflict, notFound } from '../../domain/errors.js';
import type { JsonBatch } from '../../http/json-stream.js';
import { errorMessage } from '../../jobs/queue.js';
import type { JobDefinition } from '../../jobs/registry.js';
import { OVERDUE_JOB, overdueKey, PIX_REMOVE_JOB, REGISTER_JOB, registerKey, type BankSlipDeps } from './deps.js';
import { importReturnFile, remittanceOf, type ImportSummary } from './cnab/files.js';
import { sandboxReturnOf } from './cnab/sandbox-return.js';
import { isPayable, payBankSlip, payByPix, type PayOptions } from './slip-payment.js';
import { cancelBankSlip } from './cancel.js';
import { discountsJson } from './discounts.js';
import { CREDIT_FIELDS, LIST_FIELDS, sqlJsonObject, toDetail } from './record-fields.js';
import { listingPages, type ListFields } from './listings.js';
import { registrationOf, type Registration } from './registration.js';
import { bankSlipsRepository as repo, type DateColumn, type ListCursor, type ListRange } from './repository.js';
import { INTEGRATION, STATUS, type BankSlipRow } from './row.js';
import { bankLayout } from '../../domain/cnab240-banks.js';
import { checkIssueRules, checkRange, dateBound } from './issue-rules.js';
import type { BankSlipDetail, BankSlipListRecord, IssueBody } from './schemas.js';
import { recordEvent, recordTransition } from './slip-events.js';
import { dueChargeOf } from './pix-code.js';
import { shownAddress } from '../merchants/service.js';
import { withSlot } from '../../http/stream-slots.js';
import { sandboxDelete, type ResetCounts, type ResetExecutor } from '../../db/sandbox-reset.js';

export interface Owner {
  merchantId: string;
  accountNumber: number;
}

/**
 * Bank slips (contract section 10). Issue records the slip (statusBill 1) with a registration
 * job due at once; the job plays the bank: our number, barcode, digitable line, Pix code,
 * 1 -> 2, and schedules the overdue check (2 -> 9) for 00:00 after the due date. Every status
 * change writes its event and notification in the same transaction (slip-events.ts).
 */
export class BankSlipService {
  /** The listings' JSON expressions for this database, built once. */
  private readonly sql: { list: string; credit: string };

  constructor(private readonly ctx: BankSlipDeps) {
    this.sql = { list: sqlJsonObject(LIST_FIELDS, ctx.database.dialect), credit: sqlJsonObject(CREDIT_FIELDS, ctx.database.dialect) };
  }

  async issue(owner: Owner, body: IssueBody): Promise<BankSlipDetail> {
    const { ctx } = this;
    const now = ctx.clock.now();
    const at = now.toISOString();
    const input = checkIssueRules(body, toIsoDate(now), bankLayout(ctx.config.bankSlipBankCode).alphanumericCnpj);
    const id = randomUUID();
    const row = await ctx.database.db.transaction().execute(async (trx) => {
      const row = await repo.insert(trx, {
        id,
        merchant_id: owner.merchantId,
        account_number: owner.accountNumber,
        value: Number(input.valueCents),
        issue_date: toIsoDate(now),
        due_date: input.dueDate,
        payer_document: input.payer.document,
        payer_name: input.payer.name,
        payer_street_and_number: input.payer.streetAndNumber,
        payer_zip_code: input.payer.zipCode,
        payer_city: input.payer.city,
        payer_state: input.payer.state,
        payer_neighborhood: input.payer.neighborhood,
        payer_phone_number: input.payer.phoneNumber,
        reference_code: input.referenceCode,
        pix: input.pix ? 1 : 0,
        overdue_allow: input.overdue.allow ? 1 : 0,
        overdue_date_limit: input.overdue.dateLimit,
        overdue_penalty_percent: Number(input.overdue.penaltyPercent),
        overdue_interest_percent: Number(input.overdue.interestPercentPerMonth),
        discounts: discountsJson(input.discounts),
        status_bill: STATUS.processing,
        status_integration: STATUS.processing,
        created_at: at,
        updated_at: at,
      });
      await recordEvent(trx, ctx.queue, row, null, STATUS.processing, at);
      await ctx.queue.enqueue(trx, { kind: REGISTER_JOB, payload: { id }, runAt: now, dedupeKey: registerKey(id) });
      return row;
    });
    return toDetail(row);
  }

  /**
   * The registration job. A slip the bank cannot register (RangeError from the domain: an
   * account or amount that does not fit, a Pix code that cannot be built) ends in 99 with the
   * reason; so does any error on the job's last attempt. Earlier errors are retried.
   */
  async register(id: string, lastAttempt: boolean): Promise<void> {
    const { ctx } = this;
    const db = ctx.database.db;
    const slip = await repo.find(db, id);
    if (!slip || slip.status_bill !== STATUS.processing) return;
    let registration: Registration;
    try {
      const merchant = await ctx.merchants.get(slip.merchant_id);
      registration = registrationOf(slip, { name: merchant.name, document_number: merchant.documentNumber, city: shownAddress(merchant.address).city }, ctx.config.bankSlipBankCode);
      // The printed Pix code is a charge with a due date at the PSP (API Pix cobv; the sandbox's
      // when PIX_PROVIDER=sandbox), whose location a bank app reads; the same code on a retry.
      if (slip.pix === 1) registration.pix_emv = await ctx.pix.dueChargeCode(dueChargeOf(slip, merchant.name, shownAddress(merchant.address).city));
    } catch (error) {
      if (!(error instanceof RangeError) && !lastAttempt) throw error;
      await this.fail(slip, errorMessage(error));
      return;
    }
    const at = ctx.clock.now().toISOString();
    await db.transaction().execute(async (trx) => {
      const moved = await recordTransition(trx, ctx.queue, slip, STATUS.processing, STATUS.issued, at, {
        ...registration,
        // With a real bank (BANK_SLIP_PROVIDER=cnab) the slip is registered when the bank's
        // return file confirms the entry (movement 02); the sandbox bank registers it at once.
        status_integration: ctx.config.bankSlip.provider === 'cnab' ? INTEGRATION.processing : INTEGRATION.registered,
        registered_at: at,
      });
      if (!moved) return;
      // Business dates are UTC days: the slip is overdue from 00:00 of the day after its due date.
      const runAt = startOfDay(addDays(slip.due_date, 1));
      await ctx.queue.enqueue(trx, { kind: OVERDUE_JOB, payload: { id }, runAt, dedupeKey: overdueKey(id) });
    });
  }

  private async fail(slip: BankSlipRow, reason: string): Promise<void> {
    const at = this.ctx.clock.now().toISOString();
    await this.ctx.database.db.transaction().execute((trx) =>
      recordTransition(trx, this.ctx.queue, slip, STATUS.processing, STATUS.failed, at, { status_integration: STATUS.failed, failure_reason: `Registration failed: ${reason}` }),
    );
  }

  /** The overdue job: an issued slip still unpaid when its due date has passed becomes 9. */
  async markOverdue(id: string): Promise<void> {
    const { ctx } = this;
    const slip = await repo.find(ctx.database.db, id);
    // A cancelled slip (by the merchant or the bank) is not due any more: it never becomes overdue.
    if (!slip || slip.status_bill !== STATUS.issued || slip.canceled_at !== null) return;
    const at = ctx.clock.now().toISOString();
    await ctx.database.db.transaction().execute((trx) => recordTransition(trx, ctx.queue, slip, STATUS.issued, STATUS.overdue, at));
  }

  /** CNAB 240 with the bank (cnab/): the remittance file of a day (slips issued or cancelled that day). */
  remittance(date: string): Promise<string> {
    return remittanceOf(this.ctx, date);
  }

  /** A bank's return file applied as a whole or not at all (cnab/files.ts). */
  importReturn(text: string): Promise<{ ok: boolean; summary: ImportSummary }> {
    return importReturnFile(this.ctx, text);
  }

  /** Sandbox: the return file the bank would send for a day (cnab/sandbox-return.ts). */
  sandboxReturn(date: string): Promise<string> {
    return sandboxReturnOf(this.ctx, date);
  }

  /** The merchant cancels an unpaid slip: see cancel.ts. */
  cancel(merchantId: string, id: string, reason?: string): Promise<BankSlipDetail> {
    return cancelBankSlip(this.ctx, merchantId, id, reason);
  }

  /** Sandbox payment: see slip-payment.ts. */
  pay(id: string, options: PayOptions): Promise<BankSlipDetail> {
    return payBankSlip(this.ctx, id, options);
  }

  /** A bolecode's Pix paid at the PSP (slip-payment.ts). */
  payByPix(id: string, paidAt: string, amountCents: bigint): Promise<'applied' | 'same_payment'> {
    return payByPix(this.ctx, id, paidAt, amountCents);
  }

  /** Whether a slip (and so its Pix code) can still be paid. */
  isPayable(id: string): Promise<boolean> {
    return isPayable(this.ctx, id);
  }

  /**
   * Rows per listing query. A page is read, written to the response and let go before the next
   * is read (the route streams the answer), so memory holds about two pages (~1.4 MB each at
   * 2,000 rows) whatever the window; tests lower it to cross page boundaries.
   */
  listPageSize = 2_000;

  /**
   * The listings answer the rows' JSON texts a page at a time (src/http/json-stream.ts writes
   * the array around them): validation happens here, before the first byte; reading starts when
   * the route's stream is read.
   */
  listByDueDate(owner: Owner, startDate: string, endDate: string): AsyncIterable<JsonBatch> {
    checkRange(startDate, endDate);
    return this.listing(owner, 'list', 'due_date', { start: startDate, end: endDate });
  }

  /** Paid slips only (statusBill 3), bounds included. */
  listByPaymentDate(owner: Owner, startDate: string, endDate: string): AsyncIterable<JsonBatch> {
    checkRange(startDate, endDate);
    return this.listing(owner, 'list', 'payment_date', { start: startDate, end: endDate, statusBill: STATUS.paid });
  }

  listByCreditDate(owner: Owner, start: string, end: string, statusIntegration?: number): AsyncIterable<JsonBatch> {
    const startDate = dateBound(start, 'query.startDate');
    const endDate = dateBound(end, 'query.endDate');
    checkRange(startDate, endDate);
    return this.listing(owner, 'credit', 'credit_date', { start: startDate, end: endDate, statusIntegration });
  }

  /** A listing holding one of the merchant's stream slots (src/http/stream-slots.ts: 429 when none is free) until it ends. */
  private listing(owner: Owner, fields: ListFields, column: DateColumn, range: ListRange): AsyncIterable<JsonBatch> {
    const jsonObject = this.sql[fields];
    return withSlot(this.ctx.streamSlots, owner.merchantId, () => listingPages(readDatabase(this.ctx.database), fields, jsonObject, owner.accountNumber, column, range, this.listPageSize));
  }


  /**
   * One page of a listing, for the dashboard (read method): the same windows, filters and
   * (date, seq) keyset as the three API listings, but a screenful at a time with the cursor of
   * the next page, instead of the whole window streamed.
   */
  async listPage(accountNumber: number, by: 'due' | 'payment' | 'credit', startDate: string, endDate: string, limit: number, after?: ListCursor): Promise<{ items: BankSlipListRecord[]; next?: ListCursor }> {
    checkRange(startDate, endDate);
    const column: DateColumn = by === 'due' ? 'due_date' : by === 'payment' ? 'payment_date' : 'credit_date';
    const range: ListRange = { start: startDate, end: endDate, ...(by === 'payment' ? { statusBill: STATUS.paid } : {}) };
    const rows = await repo.listJsonPage(this.ctx.database.db, this.sql.list, accountNumber, column, range, limit + 1, after);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { items: page.map((r) => JSON.parse(r.json) as BankSlipListRecord), ...(rows.length > limit && last ? { next: { date: last.date, seq: Number(last.seq) } } : {}) };
  }

  async information(merchantId: string, id: string): Promise<BankSlipDetail> {
    const slip = await repo.find(this.ctx.database.db, id, merchantId);
    if (!slip) throw notFound('Bank slip');
    return toDetail(slip);
  }

  /** The slip row, its merchant (sacador/avalista) and the bank's beneficiary, for the printable slip; 409 before registration and once cancelled. */
  async printable(merchantId: string, id: string) {
    const slip = await repo.find(this.ctx.database.db, id, merchantId);
    if (!slip) throw notFound('Bank slip');
    // A printed slip asks to be paid: a cancelled one is not printed again.
    if (slip.canceled_at !== null) throw conflict(`The bank slip was cancelled (${slip.cancellation_reason ?? 'no reason given'}); there is nothing to print.`);
    if (slip.bar_code === null) {
      throw conflict(slip.status_bill === STATUS.failed ? 'The bank slip failed registration; there is nothing to print.' : 'The bank slip is not registered yet; try again in a moment.');
    }
    const merchant = await this.ctx.merchants.get(merchantId);
    return { slip, merchant: { name: merchant.name, legal_name: merchant.legalName, document_number: merchant.documentNumber }, bank: this.ctx.config.bankSlip };
  }

  /** Sandbox reset (src/modules/sandbox/reset-service.ts): this module's business rows, every merchant's or one's. */
  async resetSandboxData(executor: ResetExecutor, merchantId?: string): Promise<ResetCounts> {
    return { bankslip_events: await sandboxDelete(executor, 'bankslip_events', merchantId), bankslips: await sandboxDelete(executor, 'bankslips', merchantId) };
  }

  /** The registration and overdue jobs (src/root/context.ts registers them). */
  jobs(): JobDefinition[] {
    return [
      { kind: REGISTER_JOB, handler: async ({ id }: { id: string }, { job }) => this.register(id, job.attempts >= job.maxAttempts), maxAttempts: 5 },
      { kind: OVERDUE_JOB, handler: async ({ id }: { id: string }) => this.markOverdue(id) },
      { kind: PIX_REMOVE_JOB, handler: async ({ id }: { id: string }) => this.ctx.pix.removeDueCharge(id), maxAttempts: 10 },
    ];
  }
}
