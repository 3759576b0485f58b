import { randomInt, randomUUID } from 'node:crypto';
import type { Executor } from '../../../db/connection.js';
import { brasiliaDate } from '../../../domain/brasilia.js';
import { buildBrCode } from '../../../domain/pix.js';
import { recurrenceIdOf, RETRY_POLICY } from '../../../domain/pix-automatico.js';
import { shownAddress } from '../../merchants/service.js';
import { cobrCancelRule, recCancelRule } from '../../../domain/pix-cancel.js';
import { DomainError, notFound, unavailable, upstreamFailed } from '../../../domain/errors.js';
import type { JobDefinition } from '../../../jobs/registry.js';
import { MAX_LOCATION_LENGTH } from '../../../pix-provider/config.js';
import { PixProviderRefused } from '../../../pix-provider/types.js';
import { recordEvents } from '../../webhooks/outbox.js';
import { pendingChargeRow } from '../charge-row.js';
import { EXPIRABLE, pixChargeEvent } from '../charge-paid.js';
import { recurrencePayload } from './payload.js';
import { recurrencesRepository, type RecurrenceRow, type RecurringChargeRow } from './repository.js';
import { PspRecurrenceReports } from './psp-reports.js';
import { SandboxPsp, SETTLE_JOB, type SettlePayload } from './sandbox-psp.js';
import type { RecurrenceDeps, RecurrenceOwner } from './types.js';

export type { RecurrenceOwner } from './types.js';

export const REC_EXPIRE_JOB = 'pix.recurrence.expire';
/** The receiving agent in the idRecs the sandbox makes up (an ISPB's 8 characters). */
const SANDBOX_AGENT = '00000000';
/** A cycle's charge stays payable through the retries' window, then the day after. */
const CHARGE_LIFETIME_DAYS = 8;
const DAY_MS = 86_400_000;

/**
 * The journey-3 code, one composite code the payer scans to pay the first charge and authorize
 * the recurrence: the charge's location in 26 and the locrec's in 80 (see RECURRENCE_TEMPLATE).
 * As the Manual de Padrões para Iniciação do Pix asks of a dynamic code, it carries no amount and
 * `***` for the txid: the payer's bank reads both from the charge's payload.
 */
export function journeyThreeCode(input: { chargeLocation: string; recurrenceLocation: string; merchantName: string; merchantCity: string }): string {
  return buildBrCode({ locationUrl: input.chargeLocation, recurrenceLocationUrl: input.recurrenceLocation, merchantName: input.merchantName, merchantCity: input.merchantCity, txid: '***' });
}

/** A recurrence created at the PSP, ready to be recorded with its subscription. */
export interface PreparedRecurrence {
  row: RecurrenceRow;
  chargeId: string;
}

export interface NewRecurrence {
  subscriptionId: string;
  merchantId: string;
  accountNumber: number;
  amountCents: bigint;
  periodicity: string;
  firstDue: Date;
  finalDate: string | null;
  expiresAt: Date;
  payer: { document: string; name: string };
  contract: string;
  object: string;
}

/** A Pix subscription's authorization as the API shows it. */
export interface PixAuthorizationView {
  recurrenceId: string;
  status: string;
  pixEmv: string;
  expiresAt: string;
  reason: string | null;
  canceledBy: string | null;
  payer: { documentNumber: string; name: string };
}

export const authorizationOf = (r: RecurrenceRow): PixAuthorizationView => ({
  recurrenceId: r.recurrence_id,
  status: r.status,
  pixEmv: r.pix_emv,
  expiresAt: r.expires_at,
  reason: r.reason,
  canceledBy: r.canceled_by,
  payer: { documentNumber: r.payer_document, name: r.payer_name },
});

/**
 * Pix Automático, the receiving side (API Pix `/rec`, `/locrec`, `/cobr`): the recurrence and
 * its journey-3 code, each cycle's charge, its retries, its cancellation. The PSP is the
 * provider's; with PIX_PROVIDER=sandbox the payer and both PSPs are played by ./sandbox-psp.ts.
 * Payments are recorded as Pix charges (pix_charges, settleCharge), so conciliation, events and
 * refunds treat them as any Pix.
 */
export class PixRecurrences {
  private owner?: RecurrenceOwner;
  readonly sandbox: SandboxPsp;
  /** PIX_PROVIDER=bcb: the PSP's webhooks and the reconciliation. */
  readonly reports: PspRecurrenceReports;

  constructor(private readonly deps: RecurrenceDeps) {
    this.sandbox = new SandboxPsp(deps, () => this.ownerOf(), (trx, rec, end) => this.close(trx, rec, end));
    this.reports = new PspRecurrenceReports(deps, () => this.ownerOf(), (trx, rec, end) => this.close(trx, rec, end));
  }

  own(owner: RecurrenceOwner): void {
    this.owner = owner;
  }

  private ownerOf(): RecurrenceOwner {
    if (!this.owner) throw new Error('no owner of Pix recurrences is listening');
    return this.owner;
  }

  /** The recurrence at the PSP, before any local write (a crash after it leaves a CRIADA recurrence that expires). */
  async prepare(input: NewRecurrence): Promise<PreparedRecurrence> {
    const now = this.deps.clock.now();
    const proposedId = recurrenceIdOf(SANDBOX_AGENT, now, randomInt);
    const chargeId = randomUUID();
    const txid = chargeId.replace(/-/g, '');
    const locationId = randomUUID().replace(/-/g, '');
    const firstDate = brasiliaDate(input.firstDue);
    const expiresInSeconds = Math.max(1, Math.round((input.expiresAt.getTime() - now.getTime()) / 1000));
    const merchant = await this.deps.merchants.get(input.merchantId);
    const { recurrenceId, location, chargeLocation } = await this.call(() =>
      this.deps.provider.createRecurrence({
        recurrenceId: proposedId, locationId, txid, amountCents: input.amountCents, expiresInSeconds, periodicity: input.periodicity, retryPolicy: RETRY_POLICY,
        firstDate, finalDate: input.finalDate, payer: input.payer, contract: input.contract, object: input.object,
      }),
    );
    for (const [what, url] of [['location', chargeLocation], ['recurrence location', location]]) {
      if (url.length > MAX_LOCATION_LENGTH) throw upstreamFailed('pix_provider_location', `The Pix provider's ${what} is ${url.length} characters; a BR Code holds ${MAX_LOCATION_LENGTH}.`);
    }
    const pixEmv = journeyThreeCode({ chargeLocation, recurrenceLocation: location, merchantName: merchant.name, merchantCity: shownAddress(merchant.address).city });
    const at = now.toISOString();
    const row: RecurrenceRow = {
      recurrence_id: recurrenceId, merchant_id: input.merchantId, account_number: input.accountNumber, subscription_id: input.subscriptionId,
      location_id: locationId, location, first_charge_id: chargeId, first_txid: txid, pix_emv: pixEmv, status: 'CRIADA',
      periodicity: input.periodicity, retry_policy: RETRY_POLICY, amount: Number(input.amountCents), first_due_date: firstDate, final_date: input.finalDate,
      payer_document: input.payer.document, payer_name: input.payer.name, contract: input.contract, expires_at: input.expiresAt.toISOString(),
      next_outcome: 'paid', reason: null, canceled_by: null, created_at: at, updated_at: at,
    };
    return { row, chargeId };
  }

  /** In the subscription's transaction: the recurrence, its journey-3 charge, and its expiry. */
  async record(trx: Executor, prepared: PreparedRecurrence, description: string): Promise<void> {
    const r = prepared.row;
    await recurrencesRepository.insert(trx, r);
    await trx.insertInto('pix_charges').values(pendingChargeRow({
      id: prepared.chargeId, merchant_id: r.merchant_id, account_number: r.account_number, txid: r.first_txid, amount: r.amount,
      description, reference_transaction: r.subscription_id, pix_emv: r.pix_emv, expires_at: r.expires_at, created_at: r.created_at,
    })).execute();
    await this.deps.queue.enqueue(trx, { kind: REC_EXPIRE_JOB, payload: { recurrenceId: r.recurrence_id }, runAt: new Date(r.expires_at), dedupeKey: `${REC_EXPIRE_JOB}:${r.recurrence_id}` });
  }

  async authorizations(subscriptionIds: string[]): Promise<Map<string, PixAuthorizationView>> {
    const rows = await recurrencesRepository.ofSubscriptions(this.deps.database.db, subscriptionIds);
    return new Map(rows.map((r) => [r.subscription_id, authorizationOf(r)]));
  }

  /** The charges of a recurrence's cycles (dashboard), keyed by billing. */
  async chargesOfSubscription(subscriptionId: string): Promise<Map<string, RecurringChargeRow>> {
    const db = this.deps.database.db;
    const rec = await recurrencesRepository.ofSubscription(db, subscriptionId);
    if (!rec) return new Map();
    return new Map((await recurrencesRepository.chargesOf(db, rec.recurrence_id)).map((c) => [c.billing_id, c]));
  }

  /**
   * A cycle's cobr (txid: the billing id's 32 hex digits, so a repeated send is one cobr), with
   * its Pix charge row for the payment; 'stopped' when the recurrence is no longer authorized.
   */
  async sendCharge(input: { billingId: string; subscriptionId: string; amountCents: bigint; dueAt: Date; description: string }): Promise<'sent' | 'stopped'> {
    const db = this.deps.database.db;
    const rec = await recurrencesRepository.ofSubscription(db, input.subscriptionId);
    if (!rec || rec.status !== 'APROVADA') return 'stopped';
    if (await recurrencesRepository.chargeOfBilling(db, input.billingId)) return 'sent';
    const txid = input.billingId.replace(/-/g, '');
    const dueDate = brasiliaDate(input.dueAt);
    await this.deps.provider.sendRecurringCharge({ txid, recurrenceId: rec.recurrence_id, amountCents: input.amountCents, dueDate, payer: { document: rec.payer_document, name: rec.payer_name }, description: input.description });
    const at = this.deps.clock.now().toISOString();
    const chargeId = randomUUID();
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('pix_charges').values(pendingChargeRow({
        id: chargeId, merchant_id: rec.merchant_id, account_number: rec.account_number, txid, amount: Number(input.amountCents), description: input.description,
        // No code: the payer's PSP pays it under the authorization.
        reference_transaction: input.billingId, pix_emv: '', expires_at: new Date(input.dueAt.getTime() + CHARGE_LIFETIME_DAYS * DAY_MS).toISOString(), created_at: at,
      })).execute();
      await recurrencesRepository.insertCharge(trx, {
        txid, recurrence_id: rec.recurrence_id, merchant_id: rec.merchant_id, billing_id: input.billingId, charge_id: chargeId, amount: Number(input.amountCents),
        due_date: dueDate, due_at: input.dueAt.toISOString(), status: 'ATIVA', retries: 0, attempts: JSON.stringify([{ date: dueDate, status: 'AGENDADA' }]), created_at: at, updated_at: at,
      });
      if (this.deps.provider.kind === 'sandbox') await this.sandbox.schedule(trx, txid, 0, input.dueAt);
    });
    return 'sent';
  }

  /** `POST /cobr/{txid}/retentativa/{data}`: the failed cycle is settled again at `at`. */
  async requestRetry(billingId: string, at: Date): Promise<void> {
    const db = this.deps.database.db;
    const charge = await recurrencesRepository.chargeOfBilling(db, billingId);
    if (!charge || charge.status !== 'ATIVA') return;
    const date = brasiliaDate(at);
    const tentatives = JSON.parse(charge.attempts) as { date: string }[];
    // Asked already (the job ran twice): nothing to do.
    if (tentatives.length > charge.retries) return;
    await this.deps.provider.requestRetry(charge.txid, date);
    await db.transaction().execute(async (trx) => {
      const moved = await recurrencesRepository.updateCharge(trx, charge, { attempts: JSON.stringify([...tentatives, { date, status: 'AGENDADA' }]), updated_at: this.deps.clock.now().toISOString() });
      if (moved && this.deps.provider.kind === 'sandbox') await this.sandbox.schedule(trx, charge.txid, charge.retries, at);
    });
  }

  /**
   * The merchant cancels one cycle: its cobr, when sent and not settled yet, is cancelled at the
   * PSP (`PATCH /cobr/{txid}`) while the API Pix allows it, before the Brasília date of its first
   * settlement attempt; from that date on it is 409 naming `expireAt` (the billing's due date)
   * and nothing is sent. A refusal the PSP still answers is 409 with its reason, nothing changed.
   */
  async cancelCharge(billingId: string): Promise<void> {
    const db = this.deps.database.db;
    const charge = await recurrencesRepository.chargeOfBilling(db, billingId);
    if (!charge || charge.status !== 'ATIVA') return;
    const rule = cobrCancelRule({ status: charge.status, firstAttemptDate: charge.due_date }, brasiliaDate(this.deps.clock.now()));
    if (!rule.ok) throw new DomainError('conflict', 'expireAt', rule.reason);
    await this.call(() => this.deps.provider.cancelRecurringCharge(charge.txid), 'conflict');
    await recurrencesRepository.updateCharge(db, charge, { status: 'CANCELADA', updated_at: this.deps.clock.now().toISOString() });
  }

  /**
   * The merchant ends the recurrence at the PSP (`PATCH /rec/{idRec}`). One that has ended
   * (expired, refused, cancelled) is not sent: the API Pix refuses it and there is nothing left
   * to end. A refusal the PSP still answers (it knows an end we were not told yet) is 409 with
   * its reason, nothing changed here; the PSP's report of that end closes it.
   */
  async cancelByMerchant(subscriptionId: string): Promise<void> {
    const db = this.deps.database.db;
    const rec = await recurrencesRepository.ofSubscription(db, subscriptionId);
    if (!rec || !recCancelRule(rec).ok) return;
    await this.call(() => this.deps.provider.cancelRecurrence(rec.recurrence_id), 'conflict');
    await db.transaction().execute(async (trx) => {
      await this.close(trx, rec, { status: 'CANCELADA', reason: 'Cancelled by the merchant.', by: 'merchant' });
    });
  }

  /**
   * In the caller's transaction: the recurrence leaves CRIADA/APROVADA, its open charges are
   * cancelled and an unpaid journey-3 charge expires. False when it had ended already.
   */
  async close(trx: Executor, rec: RecurrenceRow, end: { status: string; reason: string; by: string | null }): Promise<boolean> {
    const at = this.deps.clock.now().toISOString();
    const moved = await recurrencesRepository.transition(trx, rec.recurrence_id, ['CRIADA', 'APROVADA'], { status: end.status, reason: end.reason, canceled_by: end.status === 'CANCELADA' ? end.by : null, updated_at: at });
    if (!moved) return false;
    await recurrencesRepository.cancelOpenCharges(trx, rec.recurrence_id, at);
    const expired = await trx.updateTable('pix_charges').set({ status: 'Expired' }).where('id', '=', rec.first_charge_id).where('status', 'in', EXPIRABLE).returning(['id', 'merchant_id', 'account_number', 'amount', 'expires_at']).executeTakeFirst();
    if (expired) await recordEvents(trx, this.deps.queue, [pixChargeEvent(expired, 'pix_charge.expired', at, { expiresAt: expired.expires_at })]);
    return true;
  }

  /** The code's end: a recurrence still CRIADA expires, and its subscription is Canceled. */
  async expire(recurrenceId: string): Promise<void> {
    await this.deps.database.db.transaction().execute(async (trx) => {
      const rec = await recurrencesRepository.find(trx, recurrenceId);
      if (!rec || rec.status !== 'CRIADA') return;
      const reason = 'The payer did not authorize the recurrence before its code expired.';
      if (await this.close(trx, rec, { status: 'EXPIRADA', reason, by: null })) await this.ownerOf().ended(trx, { subscriptionId: rec.subscription_id, reason, by: 'system' });
    });
  }

  jobs(): JobDefinition[] {
    return [
      { kind: REC_EXPIRE_JOB, handler: async ({ recurrenceId }: { recurrenceId: string }) => this.expire(recurrenceId) },
      { kind: SETTLE_JOB, handler: async (payload: SettlePayload) => this.sandbox.settle(payload) },
    ];
  }

  /**
   * A PSP's refusal is `refusedAs` (upstream_failed for what the gateway asked on its own; conflict
   * for a cancel of the merchant's, a state conflict the PSP saw) with its reason, its silence 503: nothing
   * was recorded.
   */
  private async call<T>(fn: () => Promise<T>, refusedAs: 'conflict' | 'upstream_failed' = 'upstream_failed'): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof PixProviderRefused) throw new DomainError(refusedAs, 'pix_provider_refused', error.message);
      throw unavailable('pix_provider_unavailable', 'The Pix provider did not answer. Retry the request (an Idempotency-Key makes the retry safe).');
    }
  }

  /** The sandbox PSP: the signed payload at a locrec (compact JWS, as for a charge's location); 404 when unknown. */
  async signedPayload(locationId: string, signer: { sign(payload: object, jku: string): Promise<string> }, jku: string): Promise<string> {
    const rec = await recurrencesRepository.findByLocation(this.deps.database.db, locationId);
    if (!rec) throw notFound('Pix recurrence location');
    const merchant = await this.deps.merchants.get(rec.merchant_id);
    return signer.sign(recurrencePayload(rec, { name: merchant.name, document: merchant.documentNumber }), jku);
  }

  /** 404 for an unknown recurrence (sandbox routes). */
  async find(recurrenceId: string): Promise<RecurrenceRow> {
    const rec = await recurrencesRepository.find(this.deps.database.db, recurrenceId);
    if (!rec) throw notFound('Pix recurrence');
    return rec;
  }
}
