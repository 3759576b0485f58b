import { html } from '../../../http/html.js';
import type { toPixCharge } from '../../pix/service.js';
import { brl, dateTime } from '../format.js';
import { bilingual, common } from '../i18n.js';
import { layout, type PageContext } from '../layout.js';
import { badge, listWords, pager, type Tone } from './merchant-common.js';

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

export function pixListPage(page: PageContext, items: PixCharge[], nextHref: string | undefined, onFirst: boolean): string {
  const t = words(page.lang);
  const w = listWords(page.lang);
  return layout(
    page,
    t.title,
    html`${items.length
      ? html`<div class="table-wrap"><table><caption>${t.caption}</caption>
<thead><tr><th scope="col">${w.created}</th><th scope="col">${t.description}</th><th scope="col" class="num">${w.amount}</th><th scope="col">${w.status}</th><th scope="col">${t.expires}</th></tr></thead>
<tbody>${items.map((p) => html`<tr><td><a href="/dashboard/pix/${p.id}">${dateTime(p.createdAt)}</a></td><td>${p.description ?? p.referenceTransaction ?? p.txid}</td><td class="num">${brl(BigInt(p.amount))}</td><td>${pixBadge(page, p.status)}</td><td>${dateTime(p.expiresAt)}</td></tr>`)}</tbody></table></div>`
      : html`<p>${common(page.lang).noRows}</p>`}
${pager(page.lang, '/dashboard/pix', nextHref, onFirst)}`,
  );
}

export function pixDetailPage(page: PageContext, p: PixCharge): string {
  const t = words(page.lang);
  const w = listWords(page.lang);
  return layout(
    page,
    `${t.charge} · ${brl(BigInt(p.amount))}`,
    html`<p><a href="/dashboard/pix">${common(page.lang).back}</a></p>
<div class="card"><dl class="facts">
<dt>${w.status}</dt><dd>${pixBadge(page, p.status)}</dd>
<dt>${w.amount}</dt><dd>${brl(BigInt(p.amount))}</dd>
${p.description ? html`<dt>${t.description}</dt><dd>${p.description}</dd>` : ''}
${p.referenceTransaction ? html`<dt>${t.reference}</dt><dd>${p.referenceTransaction}</dd>` : ''}
<dt>txid</dt><dd><code>${p.txid}</code></dd>
<dt>${w.created}</dt><dd>${dateTime(p.createdAt)}</dd>
<dt>${t.expires}</dt><dd>${dateTime(p.expiresAt)}</dd>
${p.paidAt ? html`<dt>${t.paidAt}</dt><dd>${dateTime(p.paidAt)}</dd>` : ''}
</dl></div>
<h2>${t.code}</h2>
<div class="card"><p><code id="pix-code">${p.pixEmv}</code></p>
<button type="button" data-copy="${p.pixEmv}" data-copied-label="${w.copied}">${t.copyCode}</button></div>`,
  );
}
