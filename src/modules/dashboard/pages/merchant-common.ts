import { html, type SafeHtml } from '../../../http/html.js';
import { ApiError } from '../../../http/errors.js';
import type { Principal } from '../../auth/service.js';
import type { Scope } from '../../merchants/service.js';
import { bilingual, common, type Lang } from '../i18n.js';

/**
 * Pieces shared by the merchant's list pages of subscriptions, bank slips, Pix, links and
 * webhooks: the keyset cursor in the URL, the pager, status badges, the scope check.
 */

/** A keyset cursor (the last row of a page) as an opaque URL-safe token. */
export function encodeCursor(value: object): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** The cursor back, checked field by field (a hand-made one is a 400, never a 500). */
export function decodeCursor<T extends Record<string, string | number>>(token: string | undefined, shape: { [K in keyof T]: 'string' | 'number' }): T | undefined {
  if (!token) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  const ok = typeof value === 'object' && value !== null && Object.entries(shape).every(([k, type]) => typeof (value as Record<string, unknown>)[k] === type);
  if (!ok) throw new ApiError(400, 'query.after', 'after is not a cursor of this list.');
  return value as T;
}

/** The same scope the API route's token would need: a credential without it sees a 403 page. */
export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) throw new ApiError(403, 'forbidden', `This credential lacks the "${scope}" scope.`);
}

/** The query string of a page with `after` set (the filters kept), for the "next page" link. */
export function withAfter(path: string, query: Record<string, string | undefined>, after: string): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '' && k !== 'after') params.set(k, v);
  params.set('after', after);
  return `${path}?${params.toString()}`;
}

export function pager(lang: Lang, firstHref: string, nextHref: string | undefined, onFirst: boolean): SafeHtml {
  const t = common(lang);
  if (onFirst && !nextHref) return html``;
  return html`<nav class="pager" aria-label="${lang === 'en' ? 'Pages' : 'Páginas'}">${onFirst ? '' : html`<a href="${firstHref}">${t.first}</a>`}${nextHref ? html`<a href="${nextHref}" rel="next">${t.next}</a>` : ''}</nav>`;
}

export type Tone = 'good' | 'bad' | 'wait' | '';

/** A status as a badge: the word is always there, the colour only repeats it. */
export function badge(label: string, tone: Tone): SafeHtml {
  return html`<span class="status${tone ? ` ${tone}` : ''}">${label}</span>`;
}

/** A notice after a post/redirect/get (`?done=...`), or an error message, on top of a page. */
export function flash(notice: string | undefined, error?: string | string[]): SafeHtml {
  const errors = error === undefined ? [] : Array.isArray(error) ? error : [error];
  return html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}${errors.length ? html`<div class="alert" role="alert"><ul>${errors.map((e) => html`<li>${e}</li>`)}</ul></div>` : ''}`;
}

export const listWords = bilingual(
  { copy: 'Copiar', copied: 'Copiado', details: 'Detalhes', actions: 'Ações', from: 'De', to: 'Até', status: 'Situação', all: 'Todos', amount: 'Valor', created: 'Criado em' },
  { copy: 'Copy', copied: 'Copied', details: 'Details', actions: 'Actions', from: 'From', to: 'To', status: 'Status', all: 'All', amount: 'Amount', created: 'Created' },
);
