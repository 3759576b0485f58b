import type { Executor } from '../../../db/connection.js';
import { brasiliaDate } from '../../../domain/brasilia.js';
import { MAX_RETRIES } from '../../../domain/pix-automatico.js';
import { PixProviderRefused, type ProviderRecurrenceState, type ProviderRecurringChargeState } from '../../../pix-provider/types.js';
import type { ReceiptSource } from '../receipts.js';
import { applyAuthorized, applyTentative } from './outcomes.js';
import { recurrencesRepository, type RecurrenceRow } from './repository.js';
import type { RecurrenceDeps, RecurrenceOwner } from './types.js';

/** Open recurrences and due charges read back per reconciliation run; the next run goes on from there. */
const RECONCILE_BATCH = 500;
/** The reason a refused tentative carries when the PSP gives none. */
const REFUSED = { code: 'REJEITADA', reason: "Refused by the payer's PSP" };

type Close = (trx: Executor, rec: RecurrenceRow, end: { status: string; reason: string; by: string | null }) => Promise<boolean>;

/**
 * PIX_PROVIDER=bcb: what the PSP reports of Pix Automático (`/webhookrec`, `/webhookcobr`, or
 * `GET /rec` and `GET /cobr` when reconciling) applied through ./outcomes.ts, as the sandbox's
 * payer is. A report repeats harmlessly: each move starts from the status it leaves.
 */
export class PspRecurrenceReports {
  /** Where the next run goes on (by key), so that every open item is read in turn however many there are. */
  private readonly cursor = { recurrence: '', charge: '' };

  constructor(
    private readonly deps: RecurrenceDeps,
    private readonly owner: () => RecurrenceOwner,
    private readonly close: Close,
  ) {}

  /** A recurrence's status: authorized, or ended (refused, expired, cancelled by either side). True when it moved. */
  async recurrence(state: ProviderRecurrenceState & { recurrenceId: string }): Promise<boolean> {
    const at = this.deps.clock.now().toISOString();
    return this.deps.database.db.transaction().execute(async (trx) => {
      const rec = await recurrencesRepository.find(trx, state.recurrenceId);
      if (!rec || state.status === 'CRIADA') return false;
      if (state.status === 'APROVADA') return applyAuthorized(trx, this.owner(), rec, at);
      const by = state.status === 'EXPIRADA' ? 'system' : (state.canceledBy ?? 'payer');
      const reason = state.reason ?? ENDED[state.status](by);
      if (!(await this.close(trx, rec, { status: state.status, reason, by }))) return false;
      await this.owner().ended(trx, { subscriptionId: rec.subscription_id, reason, by });
      return true;
    });
  }

  /**
   * A cycle charge's state: each refused tentative not applied yet (a lost report included),
   * then its payment. The tentatives the PSP refused are counted against the ones recorded.
   */
  async charge(state: ProviderRecurringChargeState & { txid: string }, source: ReceiptSource): Promise<number> {
    const at = this.deps.clock.now().toISOString();
    return this.deps.database.db.transaction().execute(async (trx) => {
      let applied = 0;
      const refused = state.attempts.filter((a) => a.status === 'REJEITADA');
      for (;;) {
        const charge = await recurrencesRepository.findCharge(trx, state.txid);
        if (!charge || charge.status !== 'ATIVA') return applied;
        const next = refused[charge.retries];
        if (next) {
          // The last retry refused, or the PSP ended the charge with this refusal.
          const final = charge.retries >= MAX_RETRIES || (charge.retries + 1 >= refused.length && ['REJEITADA', 'EXPIRADA', 'CANCELADA'].includes(state.status));
          if (!(await applyTentative(trx, this.deps, this.owner(), charge, { paid: false, at, returnCode: next.code ?? REFUSED.code, reason: next.reason || REFUSED.reason, final }))) return applied;
          applied++;
          continue;
        }
        if (state.status === 'CONCLUIDA') {
          const payment = state.paid ? { endToEndId: state.paid.endToEndId, amountCents: state.paid.amountCents, source } : undefined;
          if (await applyTentative(trx, this.deps, this.owner(), charge, { paid: true, at, ...(payment ? { payment } : {}) })) applied++;
        } else if (state.status === 'CANCELADA' || state.status === 'EXPIRADA' || state.status === 'REJEITADA') {
          // Ended at the PSP with no refused tentative to tell (the payer's PSP cancelled it, or it
          // expired): no settlement will come, the cycle is unpaid.
          const why = state.status === 'CANCELADA' ? "Cancelled by the payer's PSP" : state.status === 'EXPIRADA' ? 'Expired at the PSP' : REFUSED.reason;
          if (await applyTentative(trx, this.deps, this.owner(), charge, { paid: false, at, returnCode: state.status, reason: why, final: true, endStatus: state.status })) applied++;
        }
        return applied;
      }
    });
  }

  /**
   * The reconciliation: every recurrence still open (`GET /rec/{idRec}`) and every cycle charge
   * whose due date has come and is not settled (`GET /cobr/{txid}`), so a lost webhook loses nothing.
   */
  async reconcile(batch = RECONCILE_BATCH): Promise<{ recurrences: number; charges: number }> {
    const db = this.deps.database.db;
    const counts = { recurrences: 0, charges: 0 };
    const recs = await db.selectFrom('pix_recurrences').select('recurrence_id').where('status', 'in', ['CRIADA', 'APROVADA']).where('recurrence_id', '>', this.cursor.recurrence).orderBy('recurrence_id').limit(batch).execute();
    this.cursor.recurrence = recs.length === batch ? recs[recs.length - 1].recurrence_id : '';
    for (const { recurrence_id } of recs) {
      const state = await refusedAsNull(() => this.deps.provider.readRecurrence(recurrence_id));
      if (state && (await this.recurrence({ ...state, recurrenceId: recurrence_id }))) counts.recurrences++;
    }
    const today = brasiliaDate(this.deps.clock.now());
    const charges = await db.selectFrom('pix_recurring_charges').select('txid').where('status', '=', 'ATIVA').where('due_date', '<=', today).where('txid', '>', this.cursor.charge).orderBy('txid').limit(batch).execute();
    this.cursor.charge = charges.length === batch ? charges[charges.length - 1].txid : '';
    for (const { txid } of charges) {
      const state = await refusedAsNull(() => this.deps.provider.readRecurringCharge(txid));
      if (state) counts.charges += await this.charge({ ...state, txid }, 'reconciliation');
    }
    return counts;
  }
}

const ENDED: Record<'REJEITADA' | 'EXPIRADA' | 'CANCELADA', (by: string) => string> = {
  REJEITADA: () => 'The payer refused the recurrence in their bank app.',
  EXPIRADA: () => 'The payer did not authorize the recurrence before its code expired.',
  CANCELADA: (by) => (by === 'merchant' ? 'Cancelled by the merchant.' : 'Cancelled by the payer in their bank app.'),
};

/**
 * One item the PSP refuses to read (a 4xx) is skipped, so it cannot hold up the others; a PSP
 * that does not answer fails the run, which the job retries.
 */
async function refusedAsNull<T>(read: () => Promise<T | null>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof PixProviderRefused) return null;
    throw error;
  }
}
