import { addDays, toIsoDate } from '../../../domain/calendar.js';
import { parseReturnFile, type LineError } from '../../../domain/cnab240-return.js';
import type { Executor } from '../../../db/connection.js';
import type { BankSlipDeps } from '../deps.js';
import { overdueKey } from '../deps.js';
import { recordPayment } from '../slip-payment.js';
import { bankSlipsRepository as repo } from '../repository.js';
import { STATUS, type BankSlipRow } from '../row.js';
import { recordTransition, recordWriteOff } from '../slip-events.js';
import { outcomeOf, recordProblem, type Outcome } from './outcome.js';
import { buildRemittance, type Guarantor } from './remittance.js';

/** What `POST /admin/bankslips/returns` and `gateway bankslips import` answer. */
export interface ImportSummary {
  applied: number;
  unchanged: number;
  rejected: number;
  errors: LineError[];
}

/**
 * Our numbers have 15 digits (free-field.ts). FEBRABAN's nosso número field (T 38-57) is
 * alphanumeric, left-aligned with blanks, but some banks and libraries write it right-aligned
 * with zeros to its 20 positions: both name the same slip.
 */
export function ourNumberKey(text: string): string {
  return /^0+\d{15}$/.test(text) ? text.slice(-15) : text;
}

/** Our numbers looked up per query (well under every engine's bound-parameter limit). */
const LOOKUP_CHUNK = 500;

/** The remittance file of `date` (see remittance.ts). */
export async function remittanceOf(ctx: BankSlipDeps, date: string): Promise<string> {
  const { issued, cancelled } = await repo.forRemittance(ctx.database.db, date, addDays(date, 1));
  const guarantors = new Map<string, Guarantor>();
  for (const slip of issued) {
    if (guarantors.has(slip.merchant_id)) continue;
    const merchant = await ctx.merchants.get(slip.merchant_id);
    guarantors.set(slip.merchant_id, { name: merchant.legalName ?? merchant.name, document: merchant.documentNumber });
  }
  return buildRemittance({
    bankCode: ctx.config.bankSlipBankCode,
    bank: ctx.config.bankSlip,
    date,
    now: ctx.clock.now(),
    entries: issued.map((slip) => ({ slip, guarantor: guarantors.get(slip.merchant_id)! })),
    cancellations: cancelled,
  });
}

/**
 * Applies a return file (retorno). First every record is read and matched to its slip; any
 * problem (a short line, a wrong count, an unknown nosso número, an unreadable amount) refuses
 * the whole file with every bad line named, and nothing is written. Then all records are
 * applied in one transaction, in file order, each decided from the slip as it stands
 * (outcome.ts): a record already reflected is `unchanged`, so importing a file twice changes
 * nothing the second time.
 */
export async function importReturnFile(ctx: BankSlipDeps, text: string): Promise<{ ok: boolean; summary: ImportSummary }> {
  const parsed = parseReturnFile(text);
  for (const item of parsed.items) item.ourNumber = ourNumberKey(item.ourNumber);
  const errors = [...parsed.errors];
  if (parsed.bankCode && parsed.bankCode !== ctx.config.bankSlipBankCode) {
    errors.push({ line: 1, description: `the file is from bank ${parsed.bankCode}; this gateway's slips are with bank ${ctx.config.bankSlipBankCode}` });
  }
  const slips = new Map<string, BankSlipRow>();
  const ourNumbers = [...new Set(parsed.items.map((item) => item.ourNumber))];
  for (let i = 0; i < ourNumbers.length; i += LOOKUP_CHUNK) {
    for (const slip of await repo.findByOurNumbers(ctx.database.db, ourNumbers.slice(i, i + LOOKUP_CHUNK))) slips.set(slip.our_number!, slip);
  }
  for (const item of parsed.items) {
    const problem = recordProblem(item, slips.get(item.ourNumber));
    if (problem) errors.push({ line: item.line, description: problem });
  }
  if (errors.length) {
    errors.sort((a, b) => a.line - b.line);
    return { ok: false, summary: { applied: 0, unchanged: 0, rejected: 0, errors } };
  }
  const at = ctx.clock.now().toISOString();
  const today = toIsoDate(ctx.clock.now());
  // A concurrent change (the overdue job, a sandbox payment) between a read and its conditional
  // write rolls the whole file back; the next attempt decides again from the new state.
  for (let attempt = 0; ; attempt++) {
    try {
      const summary = await ctx.database.db.transaction().execute(async (trx) => {
        const summary: ImportSummary = { applied: 0, unchanged: 0, rejected: 0, errors: [] };
        for (const item of parsed.items) {
          const slip = (await repo.find(trx, slips.get(item.ourNumber)!.id))!;
          const outcome = outcomeOf(item, slip, today);
          if (outcome.kind === 'unchanged') summary.unchanged++;
          else if (outcome.kind === 'rejected') {
            summary.rejected++;
            summary.errors.push({ line: item.line, description: outcome.description });
          } else {
            if (!(await apply(trx, ctx, slip, outcome, at))) throw new ConcurrentChange();
            summary.applied++;
          }
        }
        return summary;
      });
      return { ok: true, summary };
    } catch (error) {
      if (!(error instanceof ConcurrentChange) || attempt >= 2) throw error;
    }
  }
}

class ConcurrentChange extends Error {}

async function apply(trx: Executor, ctx: BankSlipDeps, slip: BankSlipRow, outcome: Exclude<Outcome, { kind: 'unchanged' | 'rejected' }>, at: string): Promise<boolean> {
  switch (outcome.kind) {
    case 'paid':
      return recordPayment(trx, ctx.queue, slip, outcome.fields, at);
    case 'bank_rejected': {
      const moved = await recordTransition(trx, ctx.queue, slip, slip.status_bill, STATUS.failed, at, outcome.fields);
      if (moved) await ctx.queue.cancel(trx, overdueKey(slip.id));
      return moved;
    }
    case 'written_off': {
      // No statusBill change (no event, no webhook): the slip shows CancelDate and CancellationReason.
      const moved = await repo.transition(trx, slip.id, slip.status_bill, slip.status_bill, at, outcome.fields);
      if (moved) {
        await ctx.queue.cancel(trx, overdueKey(slip.id));
        await recordWriteOff(trx, ctx.queue, slip, String(outcome.fields.cancellation_reason), at);
      }
      return moved;
    }
    case 'registered':
      return repo.transition(trx, slip.id, slip.status_bill, slip.status_bill, at, outcome.fields);
  }
}
