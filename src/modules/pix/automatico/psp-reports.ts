import type { Executor } from '../../../db/connection.js';
import { MAX_RETRIES } from '../../../domain/pix-automatico.js';
import type { ProviderRecurrenceState, ProviderRecurringChargeState } from '../../../pix-provider/types.js';
import type { ReceiptSource } from '../receipts.js';
import { applyAuthorized, applyTentative } from './outcomes.js';
import { recurrencesRepository, type RecurrenceRow } from './repository.js';
import type { RecurrenceDeps, RecurrenceOwner } from './types.js';

/** The reason a refused tentative carries when the PSP gives none. */
const REFUSED = { code: 'REJEITADA', reason: "Refused by the payer's PSP" };

type Close = (trx: Executor, rec: RecurrenceRow, end: { status: string; reason: string; by: string | null }) => Promise<boolean>;

/**
 * PIX_PROVIDER=bcb: what the PSP reports of Pix Automático (`/webhookrec`, `/webhookcobr`, or
 * `GET /rec` and `GET /cobr` when reconciling) applied through ./outcomes.ts, as the sandbox's
 * payer is. A report repeats harmlessly: each move starts from the status it leaves.
 */
export class PspRecurrenceReports {
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
   * A page of `GET /rec` (./reconciliation.ts reads the list): a recurrence this gateway holds
   * open and the PSP shows in another status is applied; one unknown here, ended here or
   * unchanged costs nothing but the page's one lookup.
   */
  async applyRecurrences(states: (ProviderRecurrenceState & { recurrenceId: string })[]): Promise<number> {
    const open = await recurrencesRepository.openAmong(this.deps.database.db, states.map((s) => s.recurrenceId));
    let applied = 0;
    for (const state of states) {
      const local = open.get(state.recurrenceId);
      if (local === undefined || local === state.status) continue;
      if (await this.recurrence(state)) applied++;
    }
    return applied;
  }

  /** A page of `GET /cobr`: a charge still ATIVA here that the PSP ended, or refused a tentative of not recorded yet. */
  async applyCharges(states: (ProviderRecurringChargeState & { txid: string })[]): Promise<number> {
    const open = await recurrencesRepository.openChargesAmong(this.deps.database.db, states.map((s) => s.txid));
    let applied = 0;
    for (const state of states) {
      const retries = open.get(state.txid);
      if (retries === undefined) continue;
      const refused = state.attempts.filter((a) => a.status === 'REJEITADA').length;
      if ((state.status === 'ATIVA' || state.status === 'CRIADA') && refused <= retries) continue;
      applied += await this.charge(state, 'reconciliation');
    }
    return applied;
  }

  /** When the oldest recurrence still open here was created (undefined: none is): where the `GET /rec` window starts. */
  oldestOpenRecurrence(): Promise<string | undefined> {
    return recurrencesRepository.oldestOpen(this.deps.database.db);
  }

  /** When the oldest cycle charge still open here was created: where the `GET /cobr` window starts. */
  oldestOpenCharge(): Promise<string | undefined> {
    return recurrencesRepository.oldestOpenCharge(this.deps.database.db);
  }
}

const ENDED: Record<'REJEITADA' | 'EXPIRADA' | 'CANCELADA', (by: string) => string> = {
  REJEITADA: () => 'The payer refused the recurrence in their bank app.',
  EXPIRADA: () => 'The payer did not authorize the recurrence before its code expired.',
  CANCELADA: (by) => (by === 'merchant' ? 'Cancelled by the merchant.' : 'Cancelled by the payer in their bank app.'),
};
