import type { AppContext } from '../../context.js';

/** What the bank slip code uses of the process's services (merchants: the beneficiary's name and document; pix: the slip's Pix code; streamSlots: the listings' per-merchant slots). */
export type BankSlipDeps = Pick<AppContext, 'database' | 'clock' | 'queue' | 'config' | 'merchants' | 'pix' | 'streamSlots'>;

/** Job kinds: registration (due at issue) and the overdue check (00:00 after the due date). */
export const REGISTER_JOB = 'bankslip.register';
export const OVERDUE_JOB = 'bankslip.overdue';
/** Each slip's single job of a kind: the dedupe key it is enqueued (and cancelled) under. */
export const registerKey = (id: string) => `${REGISTER_JOB}:${id}`;
export const overdueKey = (id: string) => `${OVERDUE_JOB}:${id}`;
