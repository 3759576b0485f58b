import type { SafeHtml } from '../../../../http/html.js';
import type { Lang } from '../../i18n.js';
import { badge, type Tone } from '../../lists.js';

/** A Pix charge's or refund's status in the page's words, as a badge (the list and the detail). */
const LABELS: Record<string, [string, string, Tone]> = {
  Pending: ['Pendente', 'Pending', 'wait'],
  Paid: ['Paga', 'Paid', 'good'],
  Expired: ['Expirada', 'Expired', 'bad'],
  InProcess: ['Em processamento', 'In process', 'wait'],
  Returned: ['Devolvido', 'Returned', 'good'],
  NotDone: ['Não realizado', 'Not done', 'bad'],
};

export function pixBadge(lang: Lang, status: string): SafeHtml {
  const [pt, en, tone] = LABELS[status] ?? [status, status, ''];
  return badge(lang === 'en' ? en : pt, tone);
}

