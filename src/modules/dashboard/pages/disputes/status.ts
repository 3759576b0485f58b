import type { SafeHtml } from '../../../../http/html.js';
import type { Lang } from '../../i18n.js';
import { badge, type Tone } from '../../lists.js';

/** A dispute's status in the page's words, as a badge (the merchant's and the operator's pages). */
const LABELS: Record<string, [string, string, Tone]> = {
  NeedsResponse: ['Aguardando resposta', 'Needs response', 'wait'],
  UnderReview: ['Em análise', 'Under review', 'wait'],
  Won: ['Ganha', 'Won', 'good'],
  Lost: ['Perdida', 'Lost', 'bad'],
  Accepted: ['Aceita', 'Accepted', 'bad'],
};

export function disputeBadge(lang: Lang, status: string): SafeHtml {
  const [pt, en, tone] = LABELS[status] ?? [status, status, ''];
  return badge(lang === 'en' ? en : pt, tone);
}

/** The statuses that still take evidence, acceptance or a decision. */
export const isOpen = (status: string) => status === 'NeedsResponse' || status === 'UnderReview';

/** The page of what a dispute contests: the card payment, or for a MED claim (pix_med) the Pix charge. */
export function disputedHref(d: { paymentId: string | null; pixChargeId: string | null }): { href: string; id: string } {
  return d.pixChargeId ? { href: `/dashboard/pix/${d.pixChargeId}`, id: d.pixChargeId } : { href: `/dashboard/payments/${d.paymentId}`, id: d.paymentId ?? '' };
}
