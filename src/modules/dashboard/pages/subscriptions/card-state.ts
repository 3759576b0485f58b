import { html } from '../../../../http/html.js';
import type { CardHistoryEntry } from '../../../cards/card-updates.js';
import type { VaultView } from '../../../cards/service.js';
import { date, dateTime } from '../../format.js';
import { bilingual } from '../../i18n.js';
import type { PageContext } from '../../layout.js';

/** What a subscription's page shows of its stored card: the card now, and each time it was replaced. */
export interface CardState {
  card: VaultView | null;
  history: CardHistoryEntry[];
  /** The latest card update link: sent (made) on, expires, used on. */
  link: { createdAt: string; expiresAt: string; usedAt: string | null } | null;
  /** The billing whose charge failed and is still open or ended so (dunning), with its next attempt. */
  failed: { installment: number; status: string; returnCode: string | null; declineCategory?: string; nextAttemptAt: string | null } | null;
  /** The card expires within 30 days (business time). */
  expiring: boolean;
}

const words = bilingual(
  {
    title: 'Cartão da assinatura',
    card: 'Cartão',
    expiry: 'Validade',
    gone: 'O cartão guardado foi removido do cofre.',
    history: 'Histórico do cartão',
    noHistory: 'O cartão nunca foi trocado.',
    updated: 'Atualizado em {date}: final {old} → final {new} ({source})',
    account_updater: 'atualização automática do emissor',
    card_update_link: 'pelo cliente, no link de atualização',
    dunning: 'Recuperação de cobrança',
    failed: 'A cobrança nº {n} falhou ({status}, código {code}{category}).',
    next: 'Próxima tentativa: {date}.',
    noNext: 'Não haverá nova tentativa automática.',
    noFailure: 'Nenhuma cobrança com falha.',
    link: 'Link de atualização do cartão enviado em {date}, válido até {expires}: {state}.',
    used: 'usado em {date}',
    unused: 'ainda não usado',
    noLink: 'Nenhum link de atualização do cartão enviado.',
    expiring: 'O cartão vence em menos de 30 dias.',
  },
  {
    title: "Subscription's card",
    card: 'Card',
    expiry: 'Expiry',
    gone: 'The stored card was removed from the vault.',
    history: 'Card history',
    noHistory: 'The card was never replaced.',
    updated: 'Updated on {date}: ending {old} → ending {new} ({source})',
    account_updater: "the issuer's account updater",
    card_update_link: 'by the customer, on the card update link',
    dunning: 'Dunning',
    failed: 'Billing no. {n} failed ({status}, code {code}{category}).',
    next: 'Next attempt: {date}.',
    noNext: 'No automatic attempt will follow.',
    noFailure: 'No failed billing.',
    link: 'Card update link sent on {date}, valid until {expires}: {state}.',
    used: 'used on {date}',
    unused: 'not used yet',
    noLink: 'No card update link sent.',
    expiring: 'The card expires within 30 days.',
  },
);

export function cardSection(page: PageContext, state: CardState) {
  const t = words(page.lang);
  const { card, history } = state;
  return html`<section class="card" aria-labelledby="card-state"><h2 id="card-state">${t.title}</h2>
${card
  ? html`<dl class="facts"><dt>${t.card}</dt><dd>${card.brand} <code>${card.maskedNumber}</code></dd><dt>${t.expiry}</dt><dd>${card.expirationMonth}/${card.expirationYear}</dd></dl>`
  : html`<p class="muted">${t.gone}</p>`}
<h3>${t.history}</h3>
${history.length
  ? html`<ul>${history.map((h) => html`<li>${t.updated.replace('{date}', date(h.updatedAt)).replace('{old}', h.oldLast4).replace('{new}', h.newLast4).replace('{source}', (t as Record<string, string>)[h.source] ?? h.source)}</li>`)}</ul>`
  : html`<p class="muted">${t.noHistory}</p>`}
<h3>${t.dunning}</h3>
${state.expiring ? html`<p class="alert" role="status">${t.expiring}</p>` : ''}
${state.failed
  ? html`<p>${t.failed.replace('{n}', String(state.failed.installment)).replace('{status}', state.failed.status).replace('{code}', state.failed.returnCode ?? '-').replace('{category}', state.failed.declineCategory ? `, ${state.failed.declineCategory}` : '')} ${state.failed.nextAttemptAt ? t.next.replace('{date}', dateTime(state.failed.nextAttemptAt)) : t.noNext}</p>`
  : html`<p class="muted">${t.noFailure}</p>`}
${state.link
  ? html`<p>${t.link.replace('{date}', dateTime(state.link.createdAt)).replace('{expires}', dateTime(state.link.expiresAt)).replace('{state}', state.link.usedAt ? t.used.replace('{date}', dateTime(state.link.usedAt)) : t.unused)}</p>`
  : html`<p class="muted">${t.noLink}</p>`}
</section>`;
}
