import type { AppContext } from '../../context.js';
import { daysBetween, isIsoDate } from '../../domain/calendar.js';
import { CONCILIATION_VALUE, parseDecimal } from '../../domain/money.js';
import { ApiError } from '../../http/errors.js';
import { requireOwnAccount } from '../../http/ownership.js';
import type { Principal } from '../auth/service.js';
import { installmentRecord, summaryRecord } from './records.js';
import { receivablesRepository } from './repository.js';

/** The longest date range a search accepts (contract section 9): end - start <= 90 days. */
export const MAX_RANGE_DAYS = 90;

function isoDate(value: string, tag: string): string {
  if (!isIsoDate(value)) throw new ApiError(400, tag, `${tag} must be a date YYYY-MM-DD.`);
  return value;
}

/** startDate <= endDate and a range of at most 90 days, else 400 on the offending bound. */
export function dateRange(q: { startDate: string; endDate: string }): { start: string; end: string } {
  const problems: { tag: string; description: string }[] = [];
  const start = isIsoDate(q.startDate) ? q.startDate : (problems.push({ tag: 'query.startDate', description: 'query.startDate must be a date YYYY-MM-DD.' }), null);
  const end = isIsoDate(q.endDate) ? q.endDate : (problems.push({ tag: 'query.endDate', description: 'query.endDate must be a date YYYY-MM-DD.' }), null);
  if (problems.length > 0) throw new ApiError(400, problems);
  if (start! > end!) throw new ApiError(400, 'query.startDate', 'query.startDate must not be after query.endDate.');
  if (daysBetween(start!, end!) > MAX_RANGE_DAYS) {
    throw new ApiError(400, 'query.endDate', `The range may cover at most ${MAX_RANGE_DAYS} days after query.startDate.`);
  }
  return { start: start!, end: end! };
}

function decimal4(value: string | undefined, tag: string): bigint | undefined {
  if (value === undefined) return undefined;
  const parsed = parseDecimal(value, CONCILIATION_VALUE);
  if (!parsed.ok) throw new ApiError(400, tag, `${tag} must be a decimal with at most 6 integer digits and 4 decimals (${parsed.error}).`);
  return parsed.value;
}

/** The five conciliation searches (seed integration-api.md); each answers [] when nothing matches. */
export const conciliationSearch = {
  async byCode(ctx: AppContext, p: Principal, q: { accountNumber: string; nsu: string; codAuth?: string }) {
    const account = requireOwnAccount(p, q.accountNumber);
    return (await receivablesRepository.byCode(ctx.database.db, account, q.nsu, q.codAuth)).map(installmentRecord);
  },

  async byAuthCode(
    ctx: AppContext,
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

  async byOperationDate(ctx: AppContext, p: Principal, q: { accountNumber: string; startDate: string; endDate: string }) {
    const account = requireOwnAccount(p, q.accountNumber);
    const { start, end } = dateRange(q);
    return (await receivablesRepository.byOperationDate(ctx.database.db, account, start, end, true)).map(summaryRecord);
  },

  async byOperationDateInstallments(ctx: AppContext, p: Principal, q: { accountNumber: string; startDate: string; endDate: string }) {
    const account = requireOwnAccount(p, q.accountNumber);
    const { start, end } = dateRange(q);
    return (await receivablesRepository.byOperationDate(ctx.database.db, account, start, end, false)).map(installmentRecord);
  },

  async byPaymentDate(ctx: AppContext, p: Principal, q: { accountNumber: string; startDate: string; endDate: string }) {
    const account = requireOwnAccount(p, q.accountNumber);
    const { start, end } = dateRange(q);
    return (await receivablesRepository.byReceiptDate(ctx.database.db, account, start, end)).map(installmentRecord);
  },
};
