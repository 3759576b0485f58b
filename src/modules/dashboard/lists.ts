import { html, type SafeHtml } from '../../http/html.js';
import { invalid } from '../../domain/errors.js';
import { common, type Lang } from './i18n.js';

/**
 * Pieces the merchant's lists (subscriptions, bank slips, Pix, links, webhooks) and their detail
 * pages share: the keyset cursor in the URL and the pager that follows it, status badges, the
 * notice or alert on top of a page.
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
  if (!ok) throw invalid('query.after', 'after is not a cursor of this list.');
  return value as T;
}

/** The query string of a page with `after` set (the filters kept), for the "next page" link. */
export function withAfter(path: string, query: Record<string, string | undefined>, after: string): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '' && k !== 'after') params.set(k, v);
  params.set('after', after);
  return `${path}?${params.toString()}`;
}

/** "First page" and "next page" links, when there is another page to go to. */
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

/** A notice after a post/redirect/get (`?done=...`), or error messages, on top of a page. */
export function flash(notice: string | undefined, error?: string | string[]): SafeHtml {
  const errors = error === undefined ? [] : Array.isArray(error) ? error : [error];
  return html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}${errors.length ? html`<div class="alert" role="alert"><ul>${errors.map((e) => html`<li>${e}</li>`)}</ul></div>` : ''}`;
}
