import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { addDays, daysBetween, isIsoDate } from '../../../domain/calendar.js';
import { InstallmentRecord, SummaryRecord } from '../../settlement/schemas.js';
import { conciliationSearch } from '../../settlement/search.js';
import { brasiliaDate } from '../charts.js';
import { csvStream } from '../csv.js';
import { pageContext, requireMerchant, sendPage, type DashboardDeps } from '../http.js';
import { SEARCH_KINDS, conciliationPage, type SearchKind } from '../pages/conciliation.js';

const ExportQuery = Type.Object({
  startDate: Type.Optional(Type.String({ maxLength: 10 })),
  endDate: Type.Optional(Type.String({ maxLength: 10 })),
  kind: Type.Optional(Type.String({ maxLength: 40 })),
});
type ExportQuery = { startDate?: string; endDate?: string; kind?: string };

/** The records' fields, in the API's order: the CSV's columns. */
const COLUMNS: Record<SearchKind, string[]> = {
  'operation-date': Object.keys(SummaryRecord.properties),
  'operation-date-installments': Object.keys(InstallmentRecord.properties),
  'payment-date': Object.keys(InstallmentRecord.properties),
};
const SEARCH = {
  'operation-date': conciliationSearch.byOperationDate,
  'operation-date-installments': conciliationSearch.byOperationDateInstallments,
  'payment-date': conciliationSearch.byPaymentDate,
} as const;

/** The conciliation export: the integration API's range searches (same service, same limits) as a CSV download. */
export function conciliationRoutes(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  const maxDays = ctx.config.conciliation.maxRangeDays;

  scope.get('/conciliation', { schema: { hide: true } }, async (request, reply) => {
    requireMerchant(request);
    const today = brasiliaDate(ctx.clock.now());
    const page = pageContext(request, deps.assets, deps.sandbox);
    return sendPage(reply, 200, conciliationPage(page, { startDate: addDays(today, -Math.min(29, maxDays)), endDate: today, kind: 'operation-date', maxDays }));
  });

  scope.get('/conciliation/export', { schema: { hide: true, querystring: ExportQuery } }, async (request, reply) => {
    const p = requireMerchant(request);
    const q = request.query as ExportQuery;
    const kind = (SEARCH_KINDS as readonly string[]).includes(q.kind ?? '') ? (q.kind as SearchKind) : 'operation-date';
    const view = { startDate: q.startDate ?? '', endDate: q.endDate ?? '', kind, maxDays };
    // The service checks the same and answers 400 too; here the form comes back with the reason.
    const refuse = (error: 'tooLong' | 'badDates') => sendPage(reply, 400, conciliationPage(pageContext(request, deps.assets, deps.sandbox), { ...view, error }));
    if (!isIsoDate(view.startDate) || !isIsoDate(view.endDate) || view.startDate > view.endDate) return refuse('badDates');
    if (daysBetween(view.startDate, view.endDate) > maxDays) return refuse('tooLong');
    // The slot (CONCIL_MAX_CONCURRENT_PER_MERCHANT) is taken here and given back when the stream ends or the browser goes away.
    const records = SEARCH[view.kind](ctx, p, { accountNumber: String(p.accountNumber), startDate: view.startDate, endDate: view.endDate });
    return reply
      .header('Content-Disposition', `attachment; filename="conciliacao-${view.kind}-${view.startDate}-${view.endDate}.csv"`)
      .header('Cache-Control', 'no-store')
      .header('X-Content-Type-Options', 'nosniff')
      .type('text/csv; charset=utf-8')
      .send(csvStream(COLUMNS[view.kind], records));
  });
}
