import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import { brasiliaDate } from '../../domain/brasilia.js';
import { addDays } from '../../domain/calendar.js';
import { isValidCpfOrCnpj } from '../../domain/documents.js';
import { periodicityOf } from '../../domain/pix-automatico.js';
import { conflict, invalid, unavailable, type ErrorItem } from '../../domain/errors.js';
import type { Principal } from '../auth/service.js';
import { billingsRepository } from './billings-repository.js';
import type { BillingEngine } from './engine.js';
import { billingEvent, subscriptionEvent } from './events.js';
import type { PixRecurrencePort } from './pix-port.js';
import { chargeCents } from './plan-rules.js';
import { plansRepository } from './plans-repository.js';
import { subscriptionsRepository } from './subscriptions-repository.js';
import type { PixAuthorizationView, PlanRow, SubscribeBody, SubscriptionRow } from './resources.js';

const DAY_MS = 86_400_000;
/** The journey-3 code is valid until the first due date, and never less than this. */
const MIN_CODE_VALIDITY_MS = DAY_MS;

/**
 * Subscriptions to Pix plans (Pix Automático): the subscription waits for the payer
 * (PendingAuthorization) with a journey-3 code; the payer's answer arrives through
 * ./pix-cycles.ts. The merchant's cancel ends the recurrence at the PSP first.
 */
export class PixSubscriptions {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly engine: BillingEngine,
    private readonly pix?: PixRecurrencePort,
  ) {}

  private port(): PixRecurrencePort {
    if (!this.pix) throw unavailable('pix_unavailable', 'Pix Automático is not available in this gateway.');
    return this.pix;
  }

  /**
   * Checked (payer instead of vaultId, a valid CPF or CNPJ), then the recurrence at the PSP,
   * then one transaction: the subscription, its billing 1 (paid with the authorization) and the
   * recurrence with its code, valid until the first due date (at least a day).
   */
  async create(principal: Principal, plan: PlanRow, body: SubscribeBody): Promise<string> {
    const errors: ErrorItem[] = [];
    if (body.vaultId !== undefined) errors.push({ tag: 'vaultId', description: 'A Pix plan is paid by Pix Automático: send payer {documentNumber, name}, not vaultId.' });
    const document = (body.payer?.documentNumber ?? '').replace(/[.\-/\s]/g, '').toUpperCase();
    if (body.payer === undefined) errors.push({ tag: 'payer', description: 'payer {documentNumber, name} is required for a Pix plan.' });
    else {
      if (!isValidCpfOrCnpj(document)) errors.push({ tag: 'payer.documentNumber', description: 'payer.documentNumber must be a valid CPF or CNPJ.' });
      if (body.payer.name.trim() === '') errors.push({ tag: 'payer.name', description: 'payer.name must not be empty.' });
    }
    if (errors.length > 0) throw invalid(errors);
    const periodicity = periodicityOf(plan.plan_type, plan.interval_days);
    if (!periodicity) throw conflict('The plan has no Pix Automático periodicity.');
    if (plan.status !== 'Active') throw conflict(`The plan is ${plan.status}: it takes no new subscriptions.`);
    const now = this.clock.now();
    const firstDue = new Date(now.getTime() + plan.trial_days * DAY_MS);
    const expiresAt = new Date(Math.max(firstDue.getTime(), now.getTime() + MIN_CODE_VALIDITY_MS));
    const subscriptionId = randomUUID();
    const finalDate = plan.installments === null ? null : addDays(brasiliaDate(firstDue), (plan.installments - 1) * plan.interval_days);
    const prepared = await this.port().prepare({
      subscriptionId, merchantId: principal.merchantId, accountNumber: principal.accountNumber, amountCents: chargeCents(BigInt(plan.amount)),
      periodicity, firstDue, finalDate, expiresAt, payer: { document, name: body.payer!.name.trim() }, contract: body.orderNumber, object: plan.name,
    });
    await this.database.db.transaction().execute(async (trx) => {
      const current = await plansRepository.findLocked(trx, this.database.dialect, plan.plan_id);
      if (current.status !== 'Active') throw conflict(`The plan is ${current.status}: it takes no new subscriptions.`);
      const row: SubscriptionRow = {
        subscription_id: subscriptionId, merchant_id: principal.merchantId, account_number: principal.accountNumber, plan_id: plan.plan_id,
        vault_id: '', order_number: body.orderNumber, status: 'PendingAuthorization', blocked_reason: null, blocked_return_code: null,
        canceled_reason: null, canceled_by: null, created_by: principal.userName, created_at: now.toISOString(), updated_at: now.toISOString(),
      };
      await subscriptionsRepository.insert(trx, row);
      // Billing 1 is the journey-3 charge: no job, the authorization pays it.
      await this.engine.issue(trx, row, current.amount, 1, firstDue, principal.userName, 'none');
      await this.port().record(trx, prepared, `${plan.name}: billing 1`);
    });
    return subscriptionId;
  }

  async authorizations(rows: SubscriptionRow[]): Promise<Map<string, PixAuthorizationView>> {
    const ids = rows.filter((r) => r.vault_id === '').map((r) => r.subscription_id);
    if (ids.length === 0 || !this.pix) return new Map();
    return this.pix.authorizations(ids);
  }

  /**
   * The merchant cancels: the recurrence is cancelled at the PSP (`PATCH /rec/{idRec}`), then
   * the subscription and its open billing. A Pix subscription is not reactivated: the payer
   * authorizes a new one (409).
   */
  async setStatus(principal: Principal, row: SubscriptionRow, target: 'Active' | 'Canceled'): Promise<void> {
    if (target === 'Active') throw conflict(`A Pix subscription ${row.status === 'PendingAuthorization' ? 'becomes Active when the payer authorizes it' : 'cannot be reactivated: subscribe again, and the payer authorizes the new recurrence'}.`);
    await this.port().cancelByMerchant(row.subscription_id);
    const at = this.clock.now().toISOString();
    const reason = 'Cancelled by the merchant.';
    await this.database.db.transaction().execute(async (trx) => {
      if (!(await subscriptionsRepository.transition(trx, row.subscription_id, ['PendingAuthorization', 'Active', 'Blocked'], 'Canceled', at, { canceled_reason: reason, canceled_by: 'merchant' }))) {
        const now = await subscriptionsRepository.statusOf(trx, row.subscription_id);
        if (now === 'Canceled') return;
        throw conflict('The subscription changed status meanwhile; try again.');
      }
      const billings = await billingsRepository.cancelOpenedOfSubscription(trx, row.subscription_id, { by: principal.userName, at });
      await this.engine.emit(trx, [
        subscriptionEvent('subscription.canceled', row, row.status, at, { reason, canceledBy: 'merchant' }),
        ...billings.map((b) => billingEvent('billing.canceled', { ...b, account_number: row.account_number }, at, { reason: 'The subscription was canceled.' })),
      ]);
    });
  }
}
