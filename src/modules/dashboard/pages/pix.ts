import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { html } from '../../../http/html.js';
import type { toPixCharge } from '../../pix/service.js';
import { brl, dateTime } from '../format.js';
import { pageOf, requireMerchant, requireScope, sendPage, type DashboardDeps } from '../http.js';
import { bilingual, common } from '../i18n.js';
import { layout, type PageContext } from '../layout.js';
import { badge, decodeCursor, encodeCursor, pager, withAfter, type Tone } from '../lists.js';

const PAGE_SIZE = 50;
const ListQuery = Type.Object({ after: Type.Optional(Type.String({ maxLength: 400 })) });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 36 }) });

/** GET /dashboard/pix (the charges, newest first) and /dashboard/pix/:id (status and the copy-and-paste code). */
export function pixPages(scope: FastifyInstance, ctx: AppContext, deps: DashboardDeps): void {
  scope.get('/pix', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'payments');
    const after = decodeCursor<{ createdAt: string; id: string }>((request.query as { after?: string }).after, { createdAt: 'string', id: 'string' });
    const result = await ctx.pix.list(principal.merchantId, PAGE_SIZE, after);
    const nextHref = result.next ? withAfter('/dashboard/pix', {}, encodeCursor(result.next)) : undefined;
    return sendPage(reply, 200, renderList(pageOf(request, deps), result.items, nextHref, !after));
  });

  scope.get('/pix/:id', { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const principal = requireMerchant(request);
    requireScope(principal, 'payments');
    const charge = await ctx.pix.get(principal.merchantId, (request.params as { id: string }).id);
    return sendPage(reply, 200, renderDetail(pageOf(request, deps), charge));
  });
}

type PixCharge = ReturnType<typeof toPixCharge>;

const words = bilingual(
  {
    title: 'Cobranças Pix',
    charge: 'Cobrança Pix',
    description: 'Descrição',
    reference: 'Referência',
    expires: 'Expira em',
    paidAt: 'Paga em',
    code: 'Pix copia e cola',
    copyCode: 'Copiar o código',
    Pending: 'Pendente',
    Paid: 'Paga',
    Expired: 'Expirada',
    caption: 'Cobranças Pix, das mais recentes',
  },
  {
    title: 'Pix charges',
    charge: 'Pix charge',
    description: 'Description',
    reference: 'Reference',
    expires: 'Expires',
    paidAt: 'Paid',
    code: 'Pix copy and paste',
    copyCode: 'Copy the code',
    Pending: 'Pending',
    Paid: 'Paid',
    Expired: 'Expired',
    caption: 'Pix charges, newest first',
  },
);

const TONE: Record<string, Tone> = { Paid: 'good', Pending: 'wait', Expired: 'bad' };

function pixBadge(page: PageContext, status: string) {
  return badge((words(page.lang) as Record<string, string>)[status] ?? status, TONE[status] ?? '');
}

function renderList(page: PageContext, items: PixCharge[], nextHref: string | undefined, onFirst: boolean): string {
  const t = words(page.lang);
  const c = common(page.lang);
  return layout(
    page,
    t.title,
    html`${items.length
      ? html`<div class="table-wrap"><table><caption>${t.caption}</caption>
<thead><tr><th scope="col">${c.created}</th><th scope="col">${t.description}</th><th scope="col" class="num">${c.amount}</th><th scope="col">${c.status}</th><th scope="col">${t.expires}</th></tr></thead>
<tbody>${items.map((p) => html`<tr><td><a href="/dashboard/pix/${p.id}">${dateTime(p.createdAt)}</a></td><td>${p.description ?? p.referenceTransaction ?? p.txid}</td><td class="num">${brl(BigInt(p.amount))}</td><td>${pixBadge(page, p.status)}</td><td>${dateTime(p.expiresAt)}</td></tr>`)}</tbody></table></div>`
      : html`<p>${c.noRows}</p>`}
${pager(page.lang, '/dashboard/pix', nextHref, onFirst)}`,
  );
}

function renderDetail(page: PageContext, p: PixCharge): string {
  const t = words(page.lang);
  const c = common(page.lang);
  return layout(
    page,
    `${t.charge} · ${brl(BigInt(p.amount))}`,
    html`<p><a href="/dashboard/pix">${c.back}</a></p>
<div class="card"><dl class="facts">
<dt>${c.status}</dt><dd>${pixBadge(page, p.status)}</dd>
<dt>${c.amount}</dt><dd>${brl(BigInt(p.amount))}</dd>
${p.description ? html`<dt>${t.description}</dt><dd>${p.description}</dd>` : ''}
${p.referenceTransaction ? html`<dt>${t.reference}</dt><dd>${p.referenceTransaction}</dd>` : ''}
<dt>txid</dt><dd><code>${p.txid}</code></dd>
<dt>${c.created}</dt><dd>${dateTime(p.createdAt)}</dd>
<dt>${t.expires}</dt><dd>${dateTime(p.expiresAt)}</dd>
${p.paidAt ? html`<dt>${t.paidAt}</dt><dd>${dateTime(p.paidAt)}</dd>` : ''}
</dl></div>
<h2>${t.code}</h2>
<div class="card"><p><code id="pix-code">${p.pixEmv}</code></p>
<button type="button" data-copy="${p.pixEmv}" data-copied-label="${c.copied}">${t.copyCode}</button></div>`,
  );
}
