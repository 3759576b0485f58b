import type { AppContext } from '../../context.js';

/** What the bank slip code uses of the process's services. */
export type BankSlipDeps = Pick<AppContext, 'database' | 'clock' | 'queue' | 'config'>;

/** Job kinds: registration (due at issue) and the overdue check (00:00 after the due date). */
export const REGISTER_JOB = 'bankslip.register';
export const OVERDUE_JOB = 'bankslip.overdue';
