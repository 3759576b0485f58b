import type { Clock } from '../../../clock.js';
import type { Database, Executor } from '../../../db/connection.js';
import type { JobQueue } from '../../../jobs/queue.js';
import type { PixProvider } from '../../../pix-provider/types.js';
import type { MerchantService } from '../../merchants/service.js';
import type { SettlementService } from '../../settlement/service.js';
import type { RecurrenceRow } from './repository.js';

/** What the recurrence module is told, in the transaction of the change (src/root/context.ts wires it). */
export interface RecurrenceOwner {
  /** The payer authorized the recurrence and paid its journey-3 charge. */
  authorized(trx: Executor, event: { subscriptionId: string; chargeId: string; paidAt: string }): Promise<void>;
  /** Refused, expired or cancelled: no further charge. */
  ended(trx: Executor, event: { subscriptionId: string; reason: string; by: 'payer' | 'merchant' | 'system' }): Promise<void>;
  cyclePaid(trx: Executor, event: { billingId: string; chargeId: string; paidAt: string }): Promise<void>;
  /** A settlement refused; `final`: the PSP ended the charge (no retry can follow). */
  cycleFailed(trx: Executor, event: { billingId: string; chargeId: string; at: string; returnCode: string; reason: string; final: boolean }): Promise<void>;
}

export interface RecurrenceDeps {
  database: Database;
  clock: Clock;
  queue: JobQueue;
  settlement: SettlementService;
  merchants: MerchantService;
  provider: PixProvider;
}

/** The sandbox's view of a recurrence (the /sandbox/pix/recurrences routes answer it). */
export const recurrenceView = (r: RecurrenceRow) => ({ recurrenceId: r.recurrence_id, subscriptionId: r.subscription_id, status: r.status, reason: r.reason, canceledBy: r.canceled_by, nextOutcome: r.next_outcome });
