import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Database } from '../../db/connection.js';
import type { StreamSlots } from '../../http/stream-slots.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { MerchantService } from '../merchants/service.js';
import type { PixService } from '../pix/service.js';

/** What the bank slip code uses of the process's services (merchants: the beneficiary's name and document; pix: the slip's Pix code; streamSlots: the listings' per-merchant slots). */
export interface BankSlipDeps {
  database: Database;
  clock: Clock;
  queue: JobQueue;
  config: Pick<Config, 'bankSlip' | 'bankSlipBankCode'>;
  merchants: Pick<MerchantService, 'get'>;
  pix: Pick<PixService, 'dueChargeCode' | 'removeDueCharge'>;
  streamSlots: StreamSlots;
}

/** Job kinds: registration (due at issue) and the overdue check (00:00 after the due date). */
export const REGISTER_JOB = 'bankslip.register';
export const OVERDUE_JOB = 'bankslip.overdue';
/** A cancelled bolecode's Pix code withdrawn at the PSP (retried while the PSP does not answer). */
export const PIX_REMOVE_JOB = 'bankslip.pix_remove';
/** Each slip's single job of a kind: the dedupe key it is enqueued (and cancelled) under. */
export const registerKey = (id: string) => `${REGISTER_JOB}:${id}`;
export const overdueKey = (id: string) => `${OVERDUE_JOB}:${id}`;
