import { html } from '../../../../http/html.js';
import type { CardHistoryEntry } from '../../../cards/card-updates.js';
import type { VaultView } from '../../../cards/service.js';
import { date } from '../../format.js';
import { bilingual } from '../../i18n.js';
import type { PageContext } from '../../layout.js';

/** What a subscription's page shows of its stored card: the card now, and each time it was replaced. */
export interface CardState {
  card: VaultView | null;
  history: CardHistoryEntry[];
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
</section>`;
}
