import type { Updateable } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { BankSlipsTable } from '../../db/schema.js';
import type { BankSlipStatus } from '../../domain/lifecycles.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { EventType } from '../webhooks/event-types.js';
import { recordEvents, recordNotifications, type BusinessEvent } from '../webhooks/outbox.js';
import { bankSlipsRepository as repo } from './repository.js';
import { STATUS, type BankSlipKey } from './row.js';

/** The catalogue's event of each statusBill a slip reaches (docs/events.md). */
const SLIP_EVENTS: Record<number, EventType> = {
  [STATUS.processing]: 'bank_slip.issued',
  [STATUS.issued]: 'bank_slip.registered',
  [STATUS.paid]: 'bank_slip.paid',
  [STATUS.overdue]: 'bank_slip.overdue',
  [STATUS.failed]: 'bank_slip.failed',
};

/** A bank slip's catalogue event; `extra` adds what the change carries (the payment, the reason). */
export function slipEvent(slip: BankSlipKey, type: EventType, at: string, extra: Record<string, unknown> = {}): BusinessEvent {
  return { merchantId: slip.merchant_id, accountNumber: Number(slip.account_number), type, at, data: { bankSlipId: slip.id, ...extra } };
}

/** The bank wrote the slip off (CNAB return): no statusBill change, so no BankSlipStatus; its catalogue event. */
export function recordWriteOff(trx: Executor, queue: JobQueue, slip: BankSlipKey, reason: string, at: string): Promise<void> {
  return recordEvents(trx, queue, [slipEvent(slip, 'bank_slip.written_off', at, { reason })]);
}

/** The merchant cancelled the slip (cancel.ts): its catalogue event, with the statusBill it keeps. */
export function recordCancellation(trx: Executor, queue: JobQueue, slip: BankSlipKey, reason: string, statusBill: number, at: string): Promise<void> {
  return recordEvents(trx, queue, [slipEvent(slip, 'bank_slip.canceled', at, { reason, statusBill, canceledBy: 'merchant' })]);
}

/**
 * A bank slip's status changes, each with its event row and its BankSlipStatus notification,
 * always in the caller's transaction: the change, its event and its webhook commit together or
 * not at all. The bank slip service (service.ts, slip-payment.ts) is the only writer of
 * bankslip_events.
 */

/**
 * Moves a slip from statusBill `from` to `to` with the given fields and records the change.
 * False when the slip was no longer in `from` (a concurrent change won): no event is written
 * for a change not made.
 */
export async function recordTransition(
  trx: Executor,
  queue: JobQueue,
  slip: BankSlipKey,
  from: BankSlipStatus,
  to: BankSlipStatus,
  at: string,
  fields: Updateable<BankSlipsTable> = {},
): Promise<boolean> {
  if (!(await repo.transition(trx, slip.id, from, to, at, fields))) return false;
  await recordEvent(trx, queue, slip, from, to, at);
  return true;
}

/** The event row of a statusBill change, and its BankSlipStatus notification (nsu = the slip id, values are statusBill codes). */
export async function recordEvent(trx: Executor, queue: JobQueue, slip: BankSlipKey, oldStatus: BankSlipStatus | null, newStatus: BankSlipStatus, at: string): Promise<void> {
  await repo.insertEvent(trx, {
    bankslip_id: slip.id,
    merchant_id: slip.merchant_id,
    account_number: slip.account_number,
    old_status_bill: oldStatus,
    new_status_bill: newStatus,
    occurred_at: at,
  });
  const oldValue = oldStatus === null ? '' : String(oldStatus);
  const business = SLIP_EVENTS[newStatus] ? [slipEvent(slip, SLIP_EVENTS[newStatus], at, { oldStatusBill: oldStatus, statusBill: newStatus })] : [];
  await recordNotifications(trx, queue, [
    {
      merchantId: slip.merchant_id,
      accountNumber: Number(slip.account_number),
      type: 'BankSlipStatus',
      nsu: slip.id,
      codAuth: '',
      installmentNumber: 0,
      oldValue,
      newValue: String(newStatus),
      at,
    },
  ], [], business);
}
