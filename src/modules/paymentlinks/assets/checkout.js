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

  // --- Brand detection and checks (the same rules the gateway applies; it checks again) ---

  var ELO = [
    [401178, 401179], [431274, 431274], [438935, 438935], [451416, 451416],
    [457393, 457393], [457631, 457632], [504175, 504175], [506699, 506778],
    [509000, 509999], [627780, 627780], [636297, 636297], [636368, 636369],
    [650031, 650033], [650035, 650051], [650405, 650439], [650485, 650538],
    [650541, 650598], [650700, 650718], [650720, 650727], [650901, 650978],
    [651652, 651679], [655000, 655019], [655021, 655058],
  ];
  var HIPERCARD = ['606282', '384100', '384140', '384160'];
  var LENGTHS = { visa: [13, 16, 19], mastercard: [16], amex: [15], elo: [16], hipercard: [16, 19] };
  var BRAND_NAMES = { visa: 'VISA', mastercard: 'MASTERCARD', amex: 'AMEX', elo: 'ELO', hipercard: 'HIPERCARD' };

  function brandOf(pan) {
    if (pan.length >= 6) {
      var bin = Number(pan.slice(0, 6));
      if (ELO.some(function (r) { return bin >= r[0] && bin <= r[1]; })) return 'elo';
      if (HIPERCARD.some(function (p) { return pan.indexOf(p) === 0; })) return 'hipercard';
    }
    if (/^3[47]/.test(pan)) return 'amex';
    if (/^4/.test(pan)) return 'visa';
    var two = Number(pan.slice(0, 2));
    var four = Number(pan.slice(0, 4));
    if ((two >= 51 && two <= 55) || (pan.length >= 4 && four >= 2221 && four <= 2720)) return 'mastercard';
    return null;
  }

  function luhn(pan) {
    var sum = 0;
    for (var i = pan.length - 1, dbl = false; i >= 0; i--, dbl = !dbl) {
      var d = pan.charCodeAt(i) - 48;
      if (dbl) { d *= 2; if (d > 9) d -= 9; }
      sum += d;
    }
    return sum % 10 === 0;
  }

  var digits = function (s) { return s.replace(/\D/g, ''); };

  function checkNumber() {
    var pan = digits(els.number.value);
    var brand = brandOf(pan);
    if (!pan) return 'Informe o número do cartão.';
    if (pan.length < 12 || pan.length > 19 || !luhn(pan)) return 'Número de cartão inválido. Confira os dígitos.';
    if (!brand || LENGTHS[brand].indexOf(pan.length) < 0) return 'Bandeira não aceita. Use Visa, Mastercard, American Express, Elo ou Hipercard.';
    return '';
  }

  function parseExpiry() {
    var m = /^(\d{2})\/?(\d{2})$/.exec(els.expiry.value.replace(/\s/g, ''));
    return m ? { month: m[1], year: '20' + m[2] } : null;
  }

  function checkExpiry() {
    var exp = parseExpiry();
    if (!els.expiry.value.trim()) return 'Informe a validade.';
    if (!exp || Number(exp.month) < 1 || Number(exp.month) > 12) return 'Validade inválida. Use MM/AA.';
    var now = new Date();
    var current = now.getFullYear() * 12 + now.getMonth();
    if (Number(exp.year) * 12 + Number(exp.month) - 1 < current) return 'Cartão vencido.';
    return '';
  }

  function checkCvv() {
    var brand = brandOf(digits(els.number.value));
    var size = brand === 'amex' ? 4 : 3;
    if (!els.cvv.value) return 'Informe o código de segurança.';
    if (!/^\d+$/.test(els.cvv.value) || els.cvv.value.length !== size) return 'O código de segurança tem ' + size + ' dígitos.';
    return '';
  }

  function checkName() {
    return els.name.value.trim() ? '' : 'Informe o nome impresso no cartão.';
  }

  function checkEmail() {
    var v = els.email.value.trim();
    return !v || /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v) ? '' : 'E-mail inválido.';
  }

  function checkDocument() {
    var v = digits(els.document.value);
    return !v || v.length === 11 || v.length === 14 ? '' : 'Informe um CPF (11 dígitos) ou CNPJ (14 dígitos).';
  }

  var CHECKS = [
    [els.number, checkNumber],
    [els.name, checkName],
    [els.expiry, checkExpiry],
    [els.cvv, checkCvv],
    [els.email, checkEmail],
    [els.document, checkDocument],
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
