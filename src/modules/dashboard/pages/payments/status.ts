import { html, type SafeHtml } from '../../../../http/html.js';
import type { Lang } from '../../i18n.js';
import type { PaymentStatus } from '../../../../domain/lifecycles.js';

/** Payment ids are UUIDs: anything else is no payment (404 or a refused cursor), never a query. */
export const PAYMENT_ID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** The card payment statuses of the contract (section 6), as the list and the detail page show them. */
export const PAYMENT_STATUSES = ['Authorized', 'Paid', 'Blocked', 'Denied', 'Canceled', 'Pending', 'PendingAuthentication'] as const satisfies readonly PaymentStatus[];

const LABELS: Record<Lang, Record<string, string>> = {
  'pt-BR': { Authorized: 'Autorizado', Paid: 'Pago', Blocked: 'Em revisão', Denied: 'Negado', Canceled: 'Cancelado', Pending: 'Pendente', PendingAuthentication: 'Aguardando autenticação', Authenticated: 'Autenticado (3-D Secure)' },
  en: { Authorized: 'Authorized', Paid: 'Paid', Blocked: 'Under review', Denied: 'Denied', Canceled: 'Canceled', Pending: 'Pending', PendingAuthentication: 'Awaiting authentication', Authenticated: 'Authenticated (3-D Secure)' },
};
const TONE: Record<string, string> = { Authorized: 'good', Paid: 'good', Blocked: 'wait', Pending: 'wait', PendingAuthentication: 'wait', Denied: 'bad', Canceled: 'bad' };

/** A status as the page's language names it. */
export function statusLabel(lang: Lang, status: string): string {
  return LABELS[lang][status] ?? status;
}

/** A status badge: the word is always there (the colour is only a hint). */
export function statusBadge(lang: Lang, status: string): SafeHtml {
  return html`<span class="status ${TONE[status] ?? ''}">${statusLabel(lang, status)}</span>`;
}
