/*
 * Hosted checkout script. The card never leaves this page in clear: it is encrypted here with
 * the gateway's public key (RSA-OAEP, SHA-256, Web Crypto) and only the ciphertext, the
 * cardholder name and the installment count are sent. No third-party code, no inline code
 * (the page's Content-Security-Policy forbids both).
 */
(function () {
  'use strict';

  var form = document.getElementById('checkout');
  if (!form) return; // paid, expired or deactivated: the page already says why

  var $ = function (id) { return document.getElementById(id); };
  var els = {
    installments: $('installments'),
    number: $('card-number'),
    brand: $('card-brand'),
    name: $('card-name'),
    expiry: $('card-expiry'),
    cvv: $('card-cvv'),
    email: $('payer-email'),
    document: $('payer-document'),
    message: $('form-message'),
    button: $('pay-button'),
    result: $('result'),
    challenge: $('challenge'),
    frame: $('challenge-frame'),
  };

  // --- Checks (card-checks.js, loaded before this script: the same rules the gateway applies) ---

  var checks = window.checkoutCardChecks;
  var brandOf = checks.brandOf;
  var digits = checks.digits;
  var BRAND_NAMES = checks.BRAND_NAMES;

  function parseExpiry() { return checks.parseExpiry(els.expiry.value); }

  var CHECKS = [
    [els.number, function () { return checks.checkNumber(els.number.value); }],
    [els.name, function () { return checks.checkName(els.name.value); }],
    [els.expiry, function () { return checks.checkExpiry(els.expiry.value, new Date()); }],
    [els.cvv, function () { return checks.checkCvv(els.cvv.value, els.number.value); }],
    [els.email, function () { return checks.checkEmail(els.email.value); }],
    [els.document, function () { return checks.checkDocument(els.document.value); }],
  ];

  function showFieldError(input, text) {
    var box = $(input.id + '-error');
    box.textContent = text;
    box.hidden = !text;
    if (text) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }

  function validate(input, check) {
    var text = check();
    showFieldError(input, text);
    return !text;
  }

  function showMessage(text) {
    els.message.textContent = text;
    els.message.hidden = !text;
  }

  // --- Formatting as the payer types ---

  els.number.addEventListener('input', function () {
    var pan = digits(els.number.value).slice(0, 19);
    els.number.value = pan.replace(/(\d{4})(?=\d)/g, '$1 ');
    var brand = brandOf(pan);
    els.brand.textContent = pan.length >= 4 && brand ? BRAND_NAMES[brand] : '';
    els.cvv.maxLength = brand === 'amex' ? 4 : 3;
  });
  els.expiry.addEventListener('input', function () {
    var d = digits(els.expiry.value).slice(0, 4);
    els.expiry.value = d.length > 2 ? d.slice(0, 2) + '/' + d.slice(2) : d;
  });
  els.cvv.addEventListener('input', function () { els.cvv.value = digits(els.cvv.value).slice(0, 4); });
  CHECKS.forEach(function (pair) {
    pair[0].addEventListener('blur', function () { if (pair[0].value) validate(pair[0], pair[1]); });
  });

  var defaultLabel = 'Pagar';
  function updateButton() {
    var option = els.installments.options[els.installments.selectedIndex];
    els.button.textContent = defaultLabel + ' ' + option.getAttribute('data-total');
  }
  els.installments.addEventListener('change', updateButton);

  // --- Encryption ---

  var keyPromise = null;
  function publicKey() {
    if (!keyPromise) {
      keyPromise = fetch(form.getAttribute('data-key-url'), { credentials: 'omit' })
        .then(function (res) {
          if (!res.ok) throw new Error('public key ' + res.status);
          return res.json();
        })
        .then(function (body) {
          var b64 = body.publicKey.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s+/g, '');
          var der = Uint8Array.from(atob(b64), function (c) { return c.charCodeAt(0); });
          return crypto.subtle.importKey('spki', der, { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['encrypt']);
        });
      keyPromise.catch(function () { keyPromise = null; }); // a later attempt fetches again
    }
    return keyPromise;
  }

  function encryptCard(key) {
    var exp = parseExpiry();
    var card = { number: digits(els.number.value), expirationMonth: exp.month, expirationYear: exp.year, securityCode: els.cvv.value };
    var bytes = new TextEncoder().encode(JSON.stringify(card));
    return crypto.subtle.encrypt({ name: 'RSA-OAEP' }, key, bytes).then(function (buf) {
      var s = '';
      new Uint8Array(buf).forEach(function (b) { s += String.fromCharCode(b); });
      return btoa(s);
    });
  }

  // --- Answers ---

  var FIELD_OF_TAG = {
    'cardInfo.cardNumber': els.number,
    'cardInfo.expirationMonth': els.expiry,
    'cardInfo.expirationYear': els.expiry,
    'cardInfo.securityCode': els.cvv,
    cardholderName: els.name,
    'cardInfo.cardholderName': els.name,
    email: els.email,
    'customer.email': els.email,
    documentNumber: els.document,
    'customer.documentNumber': els.document,
  };
  var FIELD_TEXT = {
    'card-number': 'Número de cartão inválido.',
    'card-expiry': 'Validade inválida ou cartão vencido.',
    'card-cvv': 'Código de segurança inválido.',
    'card-name': 'Nome inválido.',
    'payer-email': 'E-mail inválido.',
    'payer-document': 'CPF ou CNPJ inválido.',
  };
  var CLOSED = {
    link_paid: 'Este link já foi pago.',
    link_expired: 'Este link expirou. Peça um novo link ao vendedor.',
    link_deactivated: 'Este link foi desativado pelo vendedor.',
  };

  function minutes(seconds) {
    var m = Math.max(1, Math.ceil(seconds / 60));
    return m === 1 ? '1 minuto' : m + ' minutos';
  }

  function explainError(res, errors) {
    var first = errors[0] || { tag: '' };
    if (res.status === 429) {
      return 'Muitas tentativas de pagamento. Tente novamente em ' + minutes(Number(res.headers.get('Retry-After')) || 60) + '.';
    }
    if (CLOSED[first.tag]) {
      form.querySelectorAll('input, select, button').forEach(function (el) { el.disabled = true; });
      return CLOSED[first.tag];
    }
    if (first.tag === 'payment_in_progress') return 'Já há um pagamento deste link em processamento. Aguarde alguns instantes antes de tentar de novo.';
    if (first.tag === 'acquirer_failure') return 'Não foi possível processar o pagamento agora. Nenhum valor foi cobrado; tente novamente.';
    if (first.tag === 'acquirer_unavailable') return 'A operadora do cartão não respondeu. Não tente de novo agora: o resultado será confirmado em alguns minutos.';
    if (res.status === 400) {
      var shown = false;
      errors.forEach(function (e) {
        var input = FIELD_OF_TAG[e.tag];
        if (input) { showFieldError(input, FIELD_TEXT[input.id]); shown = true; }
      });
      if (first.tag === 'cardInfo.encryptedCard') { keyPromise = null; return 'Não foi possível ler os dados do cartão. Tente novamente.'; }
      return shown ? 'Confira os campos destacados.' : 'Não foi possível concluir o pagamento. Confira os dados e tente novamente.';
    }
    return 'Não foi possível concluir o pagamento. Tente novamente em instantes.';
  }

  function showApproved(result) {
    form.hidden = true;
    // Nothing of the card stays on the page.
    [els.number, els.cvv, els.expiry].forEach(function (el) { el.value = ''; });
    if (!result.paid || result.status !== 'Authorized') els.result.querySelector('h2').textContent = 'Pagamento recebido';
    $('result-message').textContent = result.message;
    $('result-amount').textContent = els.installments.options[els.installments.selectedIndex].getAttribute('data-total');
    $('result-installments').textContent = result.installments + 'x';
    $('result-card').textContent = 'final ' + result.maskedCardNumber.slice(-4);
    $('result-authorization').textContent = result.authorizationCode || '-';
    els.result.hidden = false;
    els.result.focus();
  }

  // --- 3-D Secure: the browser data the issuer sees, and the challenge in a frame of this page ---

  function deviceInfo() {
    return {
      browserColorDepth: String(screen.colorDepth || 24).slice(0, 2),
      browserJavaEnabled: false,
      browserLanguage: (navigator.language || 'pt-BR').slice(0, 35),
      browserScreenHeight: String(screen.height).slice(0, 6),
      browserScreenWidth: String(screen.width).slice(0, 6),
      browserTimeZone: String(new Date().getTimezoneOffset()).slice(0, 5),
      browserUserAgent: navigator.userAgent.slice(0, 2048),
    };
  }

  /** Posts the CReq to the issuer's ACS inside the frame; the frame comes back to /pay/{id}/authenticated. */
  function showChallenge(result) {
    form.hidden = true;
    [els.number, els.cvv, els.expiry].forEach(function (el) { el.value = ''; });
    els.challenge.hidden = false;
    var post = document.createElement('form');
    post.method = 'post';
    post.action = result.threeDs.acsUrl;
    post.target = 'challenge-frame';
    var creq = document.createElement('input');
    creq.type = 'hidden';
    creq.name = 'creq';
    creq.value = result.threeDs.creq;
    post.appendChild(creq);
    document.body.appendChild(post);
    post.submit();
    post.remove();
  }

  els.frame.addEventListener('load', function () {
    var where;
    try {
      where = els.frame.contentWindow.location; // readable once the frame is back on our origin
      if (!/\/authenticated$/.test(where.pathname)) return;
    } catch (e) {
      return; // still at the issuer's page
    }
    var status = new URLSearchParams(where.search).get('status');
    if (status === 'Authorized' || status === 'Blocked') {
      window.location.reload(); // the page now shows the link paid
      return;
    }
    els.challenge.hidden = true;
    form.hidden = false;
    setBusy(false);
    showMessage('O banco emissor não confirmou a sua identidade; nada foi cobrado. Tente novamente ou use outro cartão.');
  });

  function setBusy(busy) {
    els.button.disabled = busy;
    if (busy) els.button.textContent = 'Processando…';
    else updateButton();
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    showMessage('');
    var firstInvalid = null;
    CHECKS.forEach(function (pair) {
      if (!validate(pair[0], pair[1]) && !firstInvalid) firstInvalid = pair[0];
    });
    if (firstInvalid) { firstInvalid.focus(); return; }

    setBusy(true);
    publicKey()
      .then(encryptCard)
      .then(function (encryptedCard) {
        var payload = { encryptedCard: encryptedCard, cardholderName: els.name.value.trim(), installments: Number(els.installments.value) };
        var email = els.email.value.trim();
        var doc = digits(els.document.value);
        if (email) payload.email = email;
        if (doc) payload.documentNumber = doc;
        payload.deviceInfo = deviceInfo();
        return fetch(form.getAttribute('data-pay-url'), {
          method: 'POST',
          credentials: 'omit',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(payload),
        });
      })
      .then(function (res) {
        return res.json().catch(function () { return []; }).then(function (body) {
          if (res.status === 201 && body.paid) return showApproved(body);
          if (res.status === 201 && body.status === 'PendingAuthentication' && body.threeDs && body.threeDs.acsUrl) return showChallenge(body);
          setBusy(false);
          if (res.status === 201) {
            els.cvv.value = '';
            showMessage(body.message);
            return;
          }
          showMessage(explainError(res, Array.isArray(body) ? body : []));
        });
      })
      .catch(function () {
        setBusy(false);
        showMessage('Não foi possível falar com o servidor. Verifique sua conexão e tente novamente.');
      });
  });

  // Web Crypto exists only on secure pages (https, or localhost while developing).
  if (!window.crypto || !crypto.subtle) {
    showMessage('Esta página precisa de uma conexão segura (https) para proteger os dados do cartão.');
    return;
  }
  updateButton();
  els.button.disabled = false;
  publicKey().catch(function () { /* retried on submit */ });
})();
