import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { DashboardServices } from '../../services.js';
import { html } from '../../../../http/html.js';
import type { toPixCharge } from '../../../pix/service.js';
import { brl, dateTime } from '../../format.js';
import { pageOf, requireMerchant, requireScope, sendPage, type DashboardDeps } from '../../http.js';
import { bilingual, common } from '../../i18n.js';
import { layout, type PageContext } from '../../layout.js';
import { decodeCursor, encodeCursor, pager, withAfter } from '../../lists.js';
import { pixBadge } from './status.js';

const PAGE_SIZE = 50;
const ListQuery = Type.Object({ after: Type.Optional(Type.String({ maxLength: 400 })) });

/** GET /dashboard/pix: the charges, newest first, keyset-paged; each links to its page (./detail.ts). */
export function pixListPage(scope: FastifyInstance, ctx: DashboardServices, deps: DashboardDeps): void {
  scope.get('/pix', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'payments');
    const after = decodeCursor<{ createdAt: string; id: string }>((request.query as { after?: string }).after, { createdAt: 'string', id: 'string' });
    const result = await ctx.pix.list(principal.merchantId, PAGE_SIZE, after);
    const nextHref = result.next ? withAfter('/dashboard/pix', {}, encodeCursor(result.next)) : undefined;
    return sendPage(reply, 200, render(pageOf(request, deps), result.items, nextHref, !after));
  });
}

type PixCharge = ReturnType<typeof toPixCharge>;

const words = bilingual(
  { title: 'Cobranças Pix', description: 'Descrição', expires: 'Expira em', refunded: 'Devolvido', caption: 'Cobranças Pix, das mais recentes' },
  { title: 'Pix charges', description: 'Description', expires: 'Expires', refunded: 'Refunded', caption: 'Pix charges, newest first' },
);

function render(page: PageContext, items: PixCharge[], nextHref: string | undefined, onFirst: boolean): string {
  const t = words(page.lang);
  const c = common(page.lang);
  return layout(
    page,
    t.title,
    html`${items.length
      ? html`<div class="table-wrap"><table><caption>${t.caption}</caption>
<thead><tr><th scope="col">${c.created}</th><th scope="col">${t.description}</th><th scope="col" class="num">${c.amount}</th><th scope="col" class="num">${t.refunded}</th><th scope="col">${c.status}</th><th scope="col">${t.expires}</th></tr></thead>
<tbody>${items.map((p) => html`<tr><td><a href="/dashboard/pix/${p.id}">${dateTime(p.createdAt)}</a></td><td>${p.description ?? p.referenceTransaction ?? p.txid}</td><td class="num">${brl(BigInt(p.amount))}</td><td class="num">${p.refundedAmount ? brl(BigInt(p.refundedAmount)) : ''}</td><td>${pixBadge(page.lang, p.status)}</td><td>${dateTime(p.expiresAt)}</td></tr>`)}</tbody></table></div>`
      : html`<p>${c.noRows}</p>`}
${pager(page.lang, '/dashboard/pix', nextHref, onFirst)}`,
  );
}
