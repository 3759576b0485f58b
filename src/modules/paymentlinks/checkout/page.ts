import { installmentPlan, type InstallmentPlan } from '../../../domain/installments.js';
import { formatFixed } from '../../../domain/money.js';
import type { PaymentLinkRow } from '../repository.js';
import { offeredCounts } from '../link-terms.js';
import { LINK_STATUS } from '../status.js';
import { termsOf } from '../view.js';
import { brl, dateTimeBr, taxId } from '../../../domain/format-br.js';
import { html, type SafeHtml } from '../../../http/html.js';

/** Versioned asset URLs (the version is a hash of the file, so caches never serve a stale script). */
export interface PageAssets {
  /** The card checks (card-checks.js), which the page script (checkout.js) uses: linked first. */
  checks: string;
  script: string;
  style: string;
}

export interface PageOptions {
  assets: PageAssets;
  /** Same-origin URL of GET {gateway}/cards/public-key. */
  publicKeyUrl: string;
}

function layout(title: string, assets: PageAssets, body: SafeHtml): string {
  // No inline script or style anywhere: the Content-Security-Policy allows only these files.
  return html`<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${title}</title>
<link rel="stylesheet" href="${assets.style}">
<script src="${assets.checks}" defer></script>
<script src="${assets.script}" defer></script>
</head>
<body>
<main class="checkout">
${body}
</main>
</body>
</html>
`.value;
}

function optionLabel(plan: InstallmentPlan): string {
  const [first, rest] = [plan.installments[0], plan.installments[plan.installments.length - 1]];
  const total = `total ${brl(plan.total)}`;
  if (plan.count === 1) return `1x ${brl(first)} à vista`;
  if (!plan.interestFree) return `${plan.count}x ${brl(first)} com juros (${total})`;
  if (first === rest) return `${plan.count}x ${brl(first)} sem juros (${total})`;
  // Leftover cents go on the first installment (contract section 9).
  return `${plan.count}x sem juros: 1ª ${brl(first)}, demais ${brl(rest)} (${total})`;
}

/** 19900n -> "1,99". */
function percentText(fee: bigint): string {
  return formatFixed(fee, 4).replace(/\.?0+$/, '').replace('.', ',');
}

function summary(row: PaymentLinkRow): SafeHtml {
  return html`<header class="seller">
  <p class="seller-name">${row.seller_name}</p>
  <p class="seller-document">${taxId(row.seller_document_number)}</p>
</header>
<section class="summary" aria-labelledby="description">
  <h1 id="description">${row.description}</h1>
  ${row.message ? html`<p class="message">${row.message}</p>` : ''}
  <p class="value"><span>Valor</span> <strong>${brl(BigInt(row.value))}</strong></p>
</section>`;
}

function closedNotice(row: PaymentLinkRow): SafeHtml {
  const [title, text] =
    row.status === LINK_STATUS.paid
      ? ['Este link já foi pago', `O pagamento foi confirmado em ${dateTimeBr(row.payment_date ?? row.updated_at)}. Não é preciso pagar de novo.`]
      : row.status === LINK_STATUS.expired
        ? ['Este link expirou', `O prazo para pagamento terminou em ${dateTimeBr(row.expiration_date)}. Peça um novo link ao vendedor.`]
        : ['Este link foi desativado', 'O vendedor desativou este link de pagamento. Se ainda quiser pagar, peça um novo link ao vendedor.'];
  return html`<section class="notice" role="status" data-link-status="${row.status}">
  <h2>${title}</h2>
  <p>${text}</p>
</section>`;
}

function field(id: string, label: string, input: SafeHtml, hint?: string): SafeHtml {
  return html`<div class="field">
  <label for="${id}">${label}</label>
  ${input}
  ${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ''}
  <p class="field-error" id="${id}-error" hidden></p>
</div>`;
}

function form(row: PaymentLinkRow, options: PageOptions): SafeHtml {
  const terms = termsOf(row);
  const plans = offeredCounts(terms).map((n) => installmentPlan(terms.value, n, terms.qttyInstallmentsIntFree, terms.installmentsFee));
  const feeNote =
    terms.installmentsFee > 0n && plans.some((p) => !p.interestFree)
      ? `Sem juros até ${terms.qttyInstallmentsIntFree}x; acima disso, juros de ${percentText(terms.installmentsFee)}% ao mês (Tabela Price).`
      : '';
  // Card inputs have no name attribute: even if the script never ran, a browser could not
  // submit them anywhere (the only form ever submitted is the 3-D Secure CReq, built by the script).
  return html`<form id="checkout" class="pay-form" novalidate data-pay-url="/pay/${row.id}/payments" data-key-url="${options.publicKeyUrl}">
  ${field(
    'installments',
    'Parcelas',
    html`<select id="installments" aria-describedby="installments-error${feeNote ? ' installments-hint' : ''}">
    ${plans.map((p) => html`<option value="${p.count}" data-total="${brl(p.total)}">${optionLabel(p)}</option>`)}
  </select>`,
    feeNote || undefined,
  )}
  <fieldset>
    <legend>Cartão de crédito</legend>
    ${field(
      'card-number',
      'Número do cartão',
      html`<div class="with-brand"><input id="card-number" type="text" inputmode="numeric" autocomplete="cc-number" maxlength="23" aria-describedby="card-number-error card-brand" required><span id="card-brand" class="brand" aria-live="polite"></span></div>`,
    )}
    ${field('card-name', 'Nome impresso no cartão', html`<input id="card-name" type="text" autocomplete="cc-name" maxlength="30" aria-describedby="card-name-error" required>`)}
    <div class="row">
      ${field('card-expiry', 'Validade (MM/AA)', html`<input id="card-expiry" type="text" inputmode="numeric" autocomplete="cc-exp" placeholder="MM/AA" maxlength="5" aria-describedby="card-expiry-error" required>`)}
      ${field('card-cvv', 'Código de segurança (CVV)', html`<input id="card-cvv" type="text" inputmode="numeric" autocomplete="cc-csc" maxlength="4" aria-describedby="card-cvv-error" required>`)}
    </div>
  </fieldset>
  <fieldset>
    <legend>Seus dados (opcional)</legend>
    ${field('payer-email', 'E-mail para o comprovante', html`<input id="payer-email" type="email" autocomplete="email" maxlength="255" aria-describedby="payer-email-error">`)}
    ${field('payer-document', 'CPF ou CNPJ', html`<input id="payer-document" type="text" inputmode="numeric" maxlength="18" aria-describedby="payer-document-error">`)}
  </fieldset>
  <p id="form-message" class="form-message" role="alert" hidden></p>
  <button type="submit" id="pay-button" disabled>Pagar ${brl(plans[0].total)}</button>
  <p class="secure-note">Os dados do cartão são criptografados no seu navegador antes de serem enviados.</p>
  <noscript><p class="form-message">Para pagar, ative o JavaScript do seu navegador.</p></noscript>
</form>
<section id="challenge" class="challenge" hidden>
  <p>Confirme a compra com o seu banco:</p>
  <iframe id="challenge-frame" name="challenge-frame" title="Autenticação do banco emissor (3-D Secure)"></iframe>
</section>
<section id="result" class="result" tabindex="-1" hidden>
  <h2>Pagamento aprovado</h2>
  <p id="result-message"></p>
  <dl>
    <dt>Total</dt><dd id="result-amount"></dd>
    <dt>Parcelas</dt><dd id="result-installments"></dd>
    <dt>Cartão</dt><dd id="result-card"></dd>
    <dt>Autorização</dt><dd id="result-authorization"></dd>
  </dl>
</section>`;
}

/** The checkout page of a link, in the state the link is in. */
export function checkoutPage(row: PaymentLinkRow, options: PageOptions): string {
  const body = row.status === LINK_STATUS.open ? form(row, options) : closedNotice(row);
  return layout(`Pagamento — ${row.seller_name}`, options.assets, html`${summary(row)}\n${body}`);
}

export function notFoundPage(assets: PageAssets): string {
  return layout(
    'Link não encontrado',
    assets,
    html`<section class="notice" role="status"><h1>Link de pagamento não encontrado</h1><p>Confira o endereço recebido do vendedor.</p></section>`,
  );
}
