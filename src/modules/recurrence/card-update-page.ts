import { html, type SafeHtml } from '../../http/html.js';
import type { LinkState } from './card-update-links.js';

export type PageLang = 'pt-BR' | 'en';

const WORDS = {
  'pt-BR': {
    title: 'Atualize seu cartão',
    intro: 'A cobrança da sua assinatura com o cartão {card} não foi aprovada. Informe um novo cartão: ele será verificado, passará a ser o cartão da assinatura e a cobrança em aberto será feita agora.',
    noCard: 'Informe um novo cartão para a sua assinatura.',
    number: 'Número do cartão',
    name: 'Nome impresso no cartão',
    month: 'Mês (MM)',
    year: 'Ano (AAAA)',
    cvv: 'Código de segurança (CVV)',
    submit: 'Salvar cartão',
    refused: 'O novo cartão não foi aceito, e o cartão anterior continua na assinatura: {reason}',
    done: 'Pronto: o cartão final {last4} agora é o cartão da sua assinatura.',
    paid: 'A cobrança em aberto foi paga.',
    unpaid: 'A cobrança em aberto ainda não foi aprovada ({status}).',
    used: 'Este link já foi usado. Para trocar o cartão de novo, peça um novo link à loja.',
    expired: 'Este link expirou. Peça um novo link à loja.',
    unknown: 'Link não encontrado.',
    other: 'English',
  },
  en: {
    title: 'Update your card',
    intro: "Your subscription's charge on card {card} was not approved. Enter a new card: it is checked, becomes the subscription's card, and the open charge is made now.",
    noCard: 'Enter a new card for your subscription.',
    number: 'Card number',
    name: 'Name on the card',
    month: 'Month (MM)',
    year: 'Year (YYYY)',
    cvv: 'Security code (CVV)',
    submit: 'Save card',
    refused: 'The new card was not accepted, and your previous card stays on the subscription: {reason}',
    done: "Done: the card ending {last4} is now your subscription's card.",
    paid: 'The open charge was paid.',
    unpaid: 'The open charge was not approved yet ({status}).',
    used: 'This link was used already. To change the card again, ask the shop for a new link.',
    expired: 'This link has expired. Ask the shop for a new link.',
    unknown: 'Link not found.',
    other: 'Português',
  },
} as const;

const BRANDS: Record<string, string> = { visa: 'Visa', mastercard: 'Mastercard', amex: 'Amex', elo: 'Elo', hipercard: 'Hipercard' };

function shell(lang: PageLang, style: string, body: SafeHtml, switchHref: string): string {
  const t = WORDS[lang];
  return html`<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t.title}</title><link rel="stylesheet" href="${style}"></head>
<body><main class="checkout" id="card-update">
<p class="lang"><a href="${switchHref}">${t.other}</a></p>
<h1>${t.title}</h1>
${body}
</main></body></html>`.toString();
}

/** The page of a link that accepts nothing: used, expired or unknown. */
export function closedPage(lang: PageLang, style: string, kind: 'used' | 'expired' | 'unknown', switchHref: string): string {
  return shell(lang, style, html`<section class="notice" role="status" data-link-state="${kind}"><p>${WORDS[lang][kind]}</p></section>`, switchHref);
}

/** The form; only the current card's brand and last four digits are shown. `message`: why the last card was refused. */
export function formPage(lang: PageLang, style: string, state: Extract<LinkState, { kind: 'open' }>, action: string, switchHref: string, refused?: string): string {
  const t = WORDS[lang];
  const card = state.card ? `${BRANDS[state.card.brand] ?? state.card.brand} •••• ${state.card.maskedNumber.slice(-4)}` : null;
  const field = (id: string, label: string, attrs: SafeHtml) => html`<div class="field"><label for="${id}">${label}</label><input id="${id}" ${attrs}></div>`;
  return shell(
    lang,
    style,
    html`<p class="intro">${card ? t.intro.replace('{card}', card) : t.noCard}</p>
${refused ? html`<p class="form-message" role="alert" id="refused">${t.refused.replace('{reason}', refused)}</p>` : ''}
<form class="pay-form" method="post" action="${action}">
<input type="hidden" name="lang" value="${lang}">
${field('cardNumber', t.number, html`name="cardNumber" inputmode="numeric" autocomplete="cc-number" maxlength="19" required`)}
${field('cardholderName', t.name, html`name="cardholderName" autocomplete="cc-name" maxlength="30" required`)}
<div class="row">
${field('expirationMonth', t.month, html`name="expirationMonth" inputmode="numeric" autocomplete="cc-exp-month" maxlength="2" required`)}
${field('expirationYear', t.year, html`name="expirationYear" inputmode="numeric" autocomplete="cc-exp-year" maxlength="4" required`)}
${field('securityCode', t.cvv, html`name="securityCode" inputmode="numeric" autocomplete="cc-csc" maxlength="4"`)}
</div>
<button type="submit" class="pay-button">${t.submit}</button>
</form>`,
    switchHref,
  );
}

export function donePage(lang: PageLang, style: string, last4: string, billingStatus: string | null, switchHref: string): string {
  const t = WORDS[lang];
  const charge = billingStatus === null ? '' : billingStatus === 'Paid' ? t.paid : t.unpaid.replace('{status}', billingStatus);
  return shell(lang, style, html`<section class="notice" role="status" data-link-state="done"><p>${t.done.replace('{last4}', last4)}</p>${charge ? html`<p>${charge}</p>` : ''}</section>`, switchHref);
}
