import type { Clock } from '../../clock.js';
import type { Database } from '../../db/connection.js';
import type { PixProvider, PixReceipt, ProviderPage, ProviderWindow } from '../../pix-provider/types.js';
import type { PspRecurrenceReports } from './automatico/psp-reports.js';
import type { ReceiptSource, ReceiptSummary } from './receipts.js';
import { reconcileCursors, type ReconciledList } from './reconcile-cursors.js';

/**
 * How much earlier than its computed start a window begins. The API Pix's `inicio` and `fim`
 * select items by their creation at the PSP, stamped by the PSP's clock: a cobr is recorded
 * here after the PSP answered its `PUT` (up to PIX_TIMEOUT_MS later), a Pix may be listed some
 * time after its `horario`, and the two clocks may disagree by minutes. An item read twice is
 * applied once.
 */
export const RECONCILE_OVERLAP_MS = 15 * 60_000;

export interface ReconcileSummary {
  /** `GET /pix`: payments no webhook brought. */
  pix: ReceiptSummary;
  /** `GET /rec`: recurrences moved (authorized, ended). */
  recurrences: number;
  /** `GET /cobr`: tentatives and endings applied. */
  charges: number;
}

export interface ReconciliationDeps {
  database: Database;
  clock: Clock;
  provider: PixProvider;
  /** PIX_RECONCILE_WINDOW_SECONDS: how far back `GET /pix` reads at least. */
  windowSeconds: number;
  receive: (receipts: PixReceipt[], source: ReceiptSource) => Promise<ReceiptSummary>;
  reports: PspRecurrenceReports;
}

/**
 * One reconciliation run (the `pix.reconcile` job): the PSP's lists read by window, page by
 * page, so its calls grow with the pages (1,000 items each), not with the open items.
 *
 * The API Pix filters `GET /pix`, `GET /rec` and `GET /cobr` by creation, not by last change,
 * so a window over the last few minutes would never show a change to an older item: a
 * recurrence authorized days after its code was made or cancelled by the payer months later, a
 * cobr made 10 days before its due date and settled (or refused, or retried) on it. Each window
 * therefore starts where what may still change here was created:
 * - `GET /rec`: at the oldest recurrence still CRIADA or APROVADA here;
 * - `GET /cobr`: at the oldest cycle charge still ATIVA here;
 * - `GET /pix` (a Pix does not change after it is received): at the end of the last window read
 *   through (the cursor in pix_reconcile_cursors, so an instance restarted after an outage, or
 *   another one, reads the gap), and at least PIX_RECONCILE_WINDOW_SECONDS back;
 * each less RECONCILE_OVERLAP_MS, and up to now. What ended here needs no reading: its items
 * are skipped, as are items this gateway never made. A list's cursor moves only when every page
 * was read; a list that fails does not stop the others, and fails the run (the job retries).
 */
export class PixReconciliation {
  constructor(private readonly deps: ReconciliationDeps) {}

  async run(): Promise<ReconcileSummary> {
    const now = this.deps.clock.now();
    const failures: unknown[] = [];
    const attempt = async <T>(read: () => Promise<T>, none: T): Promise<T> => {
      try {
        return await read();
      } catch (error) {
        failures.push(error);
        return none;
      }
    };
    const { provider, reports } = this.deps;
    // Pix first: a journey-3 charge's payment is in it, its authorization in `GET /rec`.
    const pix = await attempt(() => this.readPix(now), { applied: 0, duplicates: 0, unmatched: 0 });
    // Recurrences before charges: a recurrence that ended takes its open charges with it.
    const recurrences = await attempt(async () => this.walk('rec', await reports.oldestOpenRecurrence(), now, (w, p) => provider.listRecurrences(w, p), (items) => reports.applyRecurrences(items)), 0);
    const charges = await attempt(async () => this.walk('cobr', await reports.oldestOpenCharge(), now, (w, p) => provider.listRecurringCharges(w, p), (items) => reports.applyCharges(items)), 0);
    if (failures.length > 0) throw failures[0];
    return { pix, recurrences, charges };
  }

  private async readPix(now: Date): Promise<ReceiptSummary> {
    const db = this.deps.database.db;
    const readUntil = await reconcileCursors.readUntil(db, 'pix');
    let from = now.getTime() - this.deps.windowSeconds * 1000;
    if (readUntil) from = Math.min(from, Date.parse(readUntil) - RECONCILE_OVERLAP_MS);
    const summary = await this.deps.receive(await this.deps.provider.listReceived(new Date(from), now), 'reconciliation');
    await reconcileCursors.advance(db, 'pix', now.toISOString(), this.deps.clock.now().toISOString());
    return summary;
  }

  /** Every page of one list over [oldest open - overlap, now]; nothing to read when nothing is open here. */
  private async walk<T>(list: ReconciledList, oldestOpen: string | undefined, now: Date, read: (window: ProviderWindow, page: number) => Promise<ProviderPage<T>>, apply: (items: T[]) => Promise<number>): Promise<number> {
    let applied = 0;
    if (oldestOpen) {
      const window = { from: new Date(Math.min(Date.parse(oldestOpen) - RECONCILE_OVERLAP_MS, now.getTime())), to: now };
      for (let page = 0, pages = 1; page < pages; page++) {
        const answer = await read(window, page);
        applied += await apply(answer.items);
        pages = answer.pages;
      }
    }
    await reconcileCursors.advance(this.deps.database.db, list, now.toISOString(), this.deps.clock.now().toISOString());
    return applied;
  }
}
