import { html, type SafeHtml } from '../../http/html.js';
import type { DashboardAssets } from './assets.js';
import { common, type Lang } from './i18n.js';
import type { DashboardSession } from './sessions.js';

/** What every page's rendering needs besides its own data (http.ts: pageOf). */
export interface PageContext {
  lang: Lang;
  assets: DashboardAssets;
  session?: DashboardSession;
  /** The path being shown (marks the current menu entry; the language switch returns to it). */
  path: string;
  sandbox: boolean;
}

interface MenuEntry {
  href: string;
  label: keyof ReturnType<typeof common>;
  sandboxOnly?: boolean;
}

const MERCHANT_MENU: MenuEntry[] = [
  { href: '/dashboard', label: 'home' },
  { href: '/dashboard/payments', label: 'payments' },
  { href: '/dashboard/disputes', label: 'disputes' },
  { href: '/dashboard/subscriptions', label: 'recurrence' },
  { href: '/dashboard/bankslips', label: 'bankSlips' },
  { href: '/dashboard/pix', label: 'pix' },
  { href: '/dashboard/links', label: 'links' },
  { href: '/dashboard/webhooks', label: 'webhooks' },
  { href: '/dashboard/conciliation', label: 'conciliation' },
];

const OPERATOR_MENU: MenuEntry[] = [
  { href: '/dashboard/operator/merchants', label: 'merchants' },
  { href: '/dashboard/operator/review', label: 'review' },
  { href: '/dashboard/operator/disputes', label: 'disputes' },
  { href: '/dashboard/operator/jobs', label: 'jobs' },
  { href: '/dashboard/operator/sandbox', label: 'sandbox', sandboxOnly: true },
];

function isCurrent(entry: string, path: string): boolean {
  if (entry === '/dashboard') return path === '/dashboard' || path === '/dashboard/';
  return path === entry || path.startsWith(`${entry}/`);
}

/** The hidden CSRF field every POST form carries. */
export function csrfField(page: PageContext): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${page.session?.csrfToken ?? ''}">`;
}

function menu(page: PageContext): SafeHtml {
  const t = common(page.lang);
  const session = page.session;
  if (!session) return html``;
  const entries = (session.role === 'operator' ? OPERATOR_MENU : MERCHANT_MENU).filter((e) => !e.sandboxOnly || page.sandbox);
  return html`<nav class="menu" aria-label="${t.menu}"><ul>
${entries.map((e) => html`<li><a href="${e.href}"${isCurrent(e.href, page.path) ? html` aria-current="page"` : ''}>${t[e.label]}</a></li>`)}
</ul></nav>`;
}

function header(page: PageContext): SafeHtml {
  const t = common(page.lang);
  const session = page.session;
  const other = page.lang === 'en' ? 'pt-BR' : 'en';
  const who = session ? (session.role === 'operator' ? t.operator : session.userName ?? '') : '';
  return html`<header class="top">
<a class="brand" href="/dashboard">${t.brand}</a>${page.sandbox ? html` <span class="badge">${t.sandboxBadge}</span>` : ''}
<div class="top-actions">
<a class="lang" href="/dashboard/lang/${other}?back=${encodeURIComponent(page.path)}" hreflang="${other}" lang="${other}">${t.switchTo}</a>
${session
  ? html`<span class="who">${t.signedInAs} <strong>${who}</strong></span>
<form method="post" action="/dashboard/logout" class="inline">${csrfField(page)}<button type="submit" class="link">${t.logout}</button></form>`
  : ''}
</div>
</header>`;
}

/**
 * The page shell: skip link, header, menu, main. No inline script or style anywhere (the
 * Content-Security-Policy allows only our files); charts read their data from data attributes.
 */
export function layout(page: PageContext, title: string, body: SafeHtml | SafeHtml[]): string {
  const t = common(page.lang);
  return html`<!doctype html>
<html lang="${page.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${title} · ${t.brand}</title>
<link rel="stylesheet" href="${page.assets.style}">
<script src="${page.assets.script}" defer></script>
</head>
<body>
<a class="skip" href="#main">${t.skip}</a>
${header(page)}
<div class="frame${page.session ? " with-menu" : ""}">
${menu(page)}
<main id="main" tabindex="-1">
<h1>${title}</h1>
${body}
</main>
</div>
</body>
</html>
`.value;
}
