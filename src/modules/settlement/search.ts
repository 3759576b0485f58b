import type { Config } from '../../config.js';
import { readDatabase, type Database } from '../../db/connection.js';
import { daysBetween, isIsoDate } from '../../domain/calendar.js';
import { CONCILIATION_VALUE, parseDecimal } from '../../domain/money.js';
import { invalid } from '../../domain/errors.js';
import type { JsonBatch } from '../../http/json-stream.js';
import { keysetPages } from '../../db/keyset-pages.js';
import { requireOwnAccount } from '../../http/ownership.js';
import { withSlot, type StreamSlots } from '../../http/stream-slots.js';
import type { Principal } from '../auth/service.js';
import { installmentJson, installmentRecord, summaryJson, type ColumnValues } from './conciliation-json.js';
import { receivablesRepository, type RangeKey, type RangeKind } from './repository.js';

/** What the conciliation searches read: the database, the merchant's stream slots and their settings. */
export interface SearchDeps {
  database: Database;
  streamSlots: StreamSlots;
  config: Pick<Config, 'conciliation'>;
}

function isoDate(value: string, tag: string): string {
  if (!isIsoDate(value)) throw invalid(tag, `${tag} must be a date YYYY-MM-DD.`);
  return value;
}

/** startDate <= endDate and a range of at most `maxDays` (CONCIL_MAX_RANGE_DAYS), else 400 on the offending bound. */
export function dateRange(q: { startDate: string; endDate: string }, maxDays: number): { start: string; end: string } {
  const problems: { tag: string; description: string }[] = [];
  const start = isIsoDate(q.startDate) ? q.startDate : (problems.push({ tag: 'query.startDate', description: 'query.startDate must be a date YYYY-MM-DD.' }), null);
  const end = isIsoDate(q.endDate) ? q.endDate : (problems.push({ tag: 'query.endDate', description: 'query.endDate must be a date YYYY-MM-DD.' }), null);
  if (problems.length > 0) throw invalid(problems);
  if (start! > end!) throw invalid('query.startDate', 'query.startDate must not be after query.endDate.');
  if (daysBetween(start!, end!) > maxDays) {
    throw invalid('query.endDate', `The range may cover at most ${maxDays} days after query.startDate (query.endDate - query.startDate <= ${maxDays}).`);
  }
  return { start: start!, end: end! };
}

function decimal4(value: string | undefined, tag: string): bigint | undefined {
  if (value === undefined) return undefined;
  const parsed = parseDecimal(value, CONCILIATION_VALUE);
  if (!parsed.ok) throw invalid(tag, `${tag} must be a decimal with at most 6 integer digits and 4 decimals (${parsed.error}).`);
  return parsed.value;
}

/** The five conciliation searches (seed integration-api.md); each answers [] when nothing matches. */
export const conciliationSearch = {
  async byCode(ctx: SearchDeps, p: Principal, q: { accountNumber: string; nsu: string; codAuth?: string }) {
    const account = requireOwnAccount(p, q.accountNumber);
    return (await receivablesRepository.byCode(ctx.database.db, account, q.nsu, q.codAuth)).map(installmentRecord);
  },

  async byAuthCode(
    ctx: SearchDeps,
    p: Principal,
    q: { accountNumber: string; codAuth: string; operationDate: string; value?: string; installmentValue?: string; installmentNumber?: number },
  ) {
    const account = requireOwnAccount(p, q.accountNumber);
    const filter = {
      codAuth: q.codAuth,
      operationDate: isoDate(q.operationDate, 'query.operationDate'),
      value: decimal4(q.value, 'query.value'),
      installmentValue: decimal4(q.installmentValue, 'query.installmentValue'),
      installmentNumber: q.installmentNumber,
    };
    return (await receivablesRepository.byAuthCode(ctx.database.db, account, filter)).map(installmentRecord);
  },

  /** The three range searches: a streamed JSON array (see rangeSearch). */
  byOperationDate: (ctx: SearchDeps, p: Principal, q: RangeQuery) => rangeSearch(ctx, p, q, 'operation-date'),
  byOperationDateInstallments: (ctx: SearchDeps, p: Principal, q: RangeQuery) => rangeSearch(ctx, p, q, 'operation-date-installments'),
  byPaymentDate: (ctx: SearchDeps, p: Principal, q: RangeQuery) => rangeSearch(ctx, p, q, 'payment-date'),
};

export interface RangeQuery {
  accountNumber: string;
  startDate: string;
  endDate: string;
  page?: number;
  limit?: number;
}

/** Reads of the range searches, per database handle (one instance; routes and pages get their own deps objects): counted for the tests and the bench. */
interface RangeState {
  reads: { queries: number; rows: number };
}
const states = new WeakMap<Database, RangeState>();
export function rangeState(ctx: SearchDeps): RangeState {
  let s = states.get(ctx.database);
  if (!s) states.set(ctx.database, (s = { reads: { queries: 0, rows: 0 } }));
  return s;
}

const serialize: { [K in RangeKind]: (row: ColumnValues) => string } = {
  'operation-date': summaryJson,
  'operation-date-installments': installmentJson,
  'payment-date': installmentJson,
};

/**
 * A range search: checks the query and takes one of the merchant's slots
 * (src/http/stream-slots.ts: 429 when none is free) before answering, then answers the records as batches of JSON text, read a page at a time (CONCIL_PAGE_ROWS rows,
 * keyset on the answer order), so neither the answer nor the single SQLite connection is held
 * for the whole range. The slot is given back when the iteration ends, however it ends (done,
 * failed, or `return()` when the client went away: no page is read after that).
 * `page` / `limit` (integrators' paging) answer one slice of the same order instead of the range.
 */
export function rangeSearch(ctx: SearchDeps, p: Principal, q: RangeQuery, kind: RangeKind): AsyncIterable<JsonBatch> {
  const settings = ctx.config.conciliation;
  const account = requireOwnAccount(p, q.accountNumber);
  const { start, end } = dateRange(q, settings.maxRangeDays);
  const paged = q.page !== undefined || q.limit !== undefined;
  const limit = q.limit ?? 1000;
  const offset = ((q.page ?? 1) - 1) * limit;
  const state = rangeState(ctx);
  const toJson = serialize[kind];
  async function* pages(): AsyncGenerator<JsonBatch> {
    // Every page of one answer from the same database: the replica when it is usable (a read that
    // decides nothing, as stale as DB_READ_MAX_LAG_SECONDS at most), else the primary.
    const db = readDatabase(ctx.database);
    if (paged) {
      // One slice: at most 10,000 rows (the schema's bound), read and sent as one batch.
      const rows = await receivablesRepository.rangePage(db, kind, account, start, end, { offset, limit });
      state.reads.queries++;
      state.reads.rows += rows.length;
      yield { items: rows, toJson };
      return;
    }
    const reads = keysetPages(
      (after: RangeKey | undefined) => {
        state.reads.queries++;
        return receivablesRepository.rangePage(db, kind, account, start, end, { after, limit: settings.pageRows });
      },
      (row) => receivablesRepository.keyOf(kind, row),
      settings.pageRows,
      db.dialect === 'postgres',
    );
    for await (const rows of reads) {
      state.reads.rows += rows.length;
      yield { items: rows, toJson };
    }
  }
  return withSlot(ctx.streamSlots, p.merchantId, pages);
}
