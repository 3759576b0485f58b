import type { Executor } from './connection.js';
import type { DB } from './schema.js';

/** The tables that carry a merchant_id column: the only ones a sandbox reset deletes by merchant. */
export type MerchantTable = { [K in keyof DB]: 'merchant_id' extends keyof DB[K] ? K : never }[keyof DB];

/**
 * Deletes a module's rows for the sandbox reset (src/modules/sandbox/reset-service.ts): every
 * row, or one merchant's. Called only by the module that owns `table` (test/architecture.test.ts
 * checks the calls like it checks deleteFrom). Answers how many rows went.
 */
export async function sandboxDelete(executor: Executor, table: MerchantTable, merchantId?: string): Promise<number> {
  // Kysely cannot type a where() over a union of tables; every member has merchant_id (MerchantTable).
  let query = executor.deleteFrom(table as 'payments');
  if (merchantId !== undefined) query = query.where('merchant_id', '=', merchantId);
  return Number((await query.executeTakeFirst()).numDeletedRows);
}

/** The database or the reset's transaction. */
export type ResetExecutor = Executor;

/** What one module removed, by table, for the reset's answer. */
export type ResetCounts = Record<string, number>;

/** A module whose business data the sandbox reset removes (through its service, never its tables). */
export interface SandboxResettable {
  resetSandboxData(executor: Executor, merchantId?: string): Promise<ResetCounts>;
}
