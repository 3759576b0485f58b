import type { Selectable } from 'kysely';
import type { BankSlipsTable } from '../../db/schema.js';
import type { BankSlipStatus } from '../../domain/lifecycles.js';

/** A slip as stored, and the codes of its two statuses. */
export type BankSlipRow = Selectable<BankSlipsTable>;
export type BankSlipKey = Pick<BankSlipRow, 'id' | 'merchant_id' | 'account_number'>;

/** statusBill values (seed "States and transitions"). */
export const STATUS = { processing: 1, issued: 2, paid: 3, overdue: 9, failed: 99 } as const satisfies Record<string, BankSlipStatus>;
/** statusIntegration values: the slip's standing at the bank (9: the bank rejected it). */
export const INTEGRATION = { processing: 1, registered: 2, rejected: 9, failed: 99 } as const;
