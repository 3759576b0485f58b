/*
 * Hosted checkout: the card and payer checks the page runs as the payer types, the same rules
 * the gateway applies (it checks again). Pure: values in, a message out ('' when fine); no page
 * access. Loaded before checkout.js, which finds them at window.checkoutCardChecks.
 */
(function () {
  'use strict';

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

  function checkNumber(number) {
    var pan = digits(number);
    var brand = brandOf(pan);
    if (!pan) return 'Informe o número do cartão.';
    if (pan.length < 12 || pan.length > 19 || !luhn(pan)) return 'Número de cartão inválido. Confira os dígitos.';
    if (!brand || LENGTHS[brand].indexOf(pan.length) < 0) return 'Bandeira não aceita. Use Visa, Mastercard, American Express, Elo ou Hipercard.';
    return '';
  }

  function parseExpiry(expiry) {
    var m = /^(\d{2})\/?(\d{2})$/.exec(expiry.replace(/\s/g, ''));
    return m ? { month: m[1], year: '20' + m[2] } : null;
  }

  /** `now`: the payer's clock, whose month the card must not be before. */
  function checkExpiry(expiry, now) {
    var exp = parseExpiry(expiry);
    if (!expiry.trim()) return 'Informe a validade.';
    if (!exp || Number(exp.month) < 1 || Number(exp.month) > 12) return 'Validade inválida. Use MM/AA.';
    var current = now.getFullYear() * 12 + now.getMonth();
    if (Number(exp.year) * 12 + Number(exp.month) - 1 < current) return 'Cartão vencido.';
    return '';
  }

  function checkCvv(cvv, number) {
    var brand = brandOf(digits(number));
    var size = brand === 'amex' ? 4 : 3;
    if (!cvv) return 'Informe o código de segurança.';
    if (!/^\d+$/.test(cvv) || cvv.length !== size) return 'O código de segurança tem ' + size + ' dígitos.';
    return '';
  }

  function checkName(name) {
    return name.trim() ? '' : 'Informe o nome impresso no cartão.';
  }

  function checkEmail(email) {
    var v = email.trim();
    return !v || /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v) ? '' : 'E-mail inválido.';
  }

  function checkDocument(value) {
    var v = digits(value);
    return !v || v.length === 11 || v.length === 14 ? '' : 'Informe um CPF (11 dígitos) ou CNPJ (14 dígitos).';
  }

  window.checkoutCardChecks = {
    BRAND_NAMES: BRAND_NAMES,
    brandOf: brandOf,
    digits: digits,
    parseExpiry: parseExpiry,
    checkNumber: checkNumber,
    checkExpiry: checkExpiry,
    checkCvv: checkCvv,
    checkName: checkName,
    checkEmail: checkEmail,
    checkDocument: checkDocument,
  };
})();
