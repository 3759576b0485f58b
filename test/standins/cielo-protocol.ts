/**
 * Cielo E-commerce API 3.0 wire format for the stand-in (test/standins/cielo.ts): the request
 * validation, the sandbox ("Simulado") outcome table, and the answer shapes. Written from Cielo's
 * published reference; where the reference is silent the choice is marked UNCONFIRMED, so a
 * reader knows which behaviour a real Cielo could contradict.
 */

/** One entry of the `[{Code, Message}]` array Cielo answers a refused request (HTTP 400) with. */
export interface CieloError {
  Code: number;
  Message: string;
}

/** The codes of Cielo's "API errors" table that this stand-in produces (numbers and messages as published). */
export const CIELO_ERRORS = {
  paymentTypeRequired: { Code: 102, Message: 'Payment Type is required' },
  orderIdInvalid: { Code: 107, Message: 'OrderId is invalid or does not exists' },
  amountInvalid: { Code: 108, Message: 'Amount must be greater or equal to zero' },
  holderRequired: { Code: 117, Message: 'Credit Card Holder is required' },
  cardNumberRequired: { Code: 118, Message: 'Credit Card Number is required' },
  paymentRequired: { Code: 119, Message: 'At least one Payment is required' },
  merchantOrderIdRequired: { Code: 122, Message: 'MerchantOrderId is required' },
  installmentsInvalid: { Code: 123, Message: 'Installments must be greater or equal to one' },
  creditCardRequired: { Code: 124, Message: 'Credit Card is Required' },
  expirationRequired: { Code: 125, Message: 'Credit Card Expiration Date is required' },
  expirationInvalid: { Code: 126, Message: 'Credit Card Expiration Date is invalid' },
  cardNumberTooLong: { Code: 128, Message: 'Card Number length exceeded' },
  securityCodeTooLong: { Code: 146, Message: 'SecurityCode length exceeded' },
  customerNameTooLong: { Code: 155, Message: 'Customer Name length exceeded' },
  paymentMethodNotEnabled: { Code: 173, Message: 'Payment method is not enabled' },
  brandRequired: { Code: 182, Message: 'Brand is required' },
  requestEmpty: { Code: 184, Message: 'Request could not be empty' },
  brandNotSupported: { Code: 185, Message: 'Brand is not supported by selected provider' },
  optionsNotSupported: {
    Code: 186,
    Message: 'The selected provider does not support the options provided (Capture, Authenticate, Recurrent or Installments)',
  },
  cardNumberInvalid: { Code: 213, Message: 'Credit Card Number is invalid' },
  // UNCONFIRMED: the codes of a malformed ExternalAuthentication node are not in the published table; these stand in for them.
  externalAuthenticationRequired: { Code: 9101, Message: 'ExternalAuthentication is required when Authenticate is true' },
  externalAuthenticationInvalid: { Code: 9102, Message: 'ExternalAuthentication is invalid' },
  dataOnlyWithAuthenticate: { Code: 9103, Message: 'DataOnly cannot be used with Authenticate' },
  notAvailableToCapture: { Code: 308, Message: 'Transaction not available to capture' },
  notAvailableToVoid: { Code: 309, Message: 'Transaction not available to void' },
} satisfies Record<string, CieloError>;

/** `CreditCard.Brand` values Cielo's credit product accepts (matched ignoring case, answered as spelled here). */
export const CIELO_BRANDS = ['Visa', 'Master', 'Amex', 'Elo', 'Hipercard', 'Diners', 'Discover', 'JCB', 'Aura'] as const;
export type CieloBrand = (typeof CIELO_BRANDS)[number];

/** Cielo's reference: "API E-commerce accepts up to 12 installments". */
export const MAX_INSTALLMENTS = 12;

/** A validated `POST /1/sales/` body. `cardNumber` lives only as long as the request: it is never stored. */
export interface SaleInput {
  merchantOrderId: string;
  customerName: string | undefined;
  hasCustomer: boolean;
  amount: number;
  installments: number;
  capture: boolean;
  softDescriptor: string | undefined;
  cardNumber: string;
  holder: string;
  expirationDate: string;
  brand: CieloBrand;
  /** `Payment.Authenticate` with its `ExternalAuthentication` node, or a Data Only node (`DataOnly: true`). */
  authentication: SaleAuthentication | undefined;
}

/** What a sale carried of 3-D Secure, as Cielo's "Authorization with Authentication" and "Data Only" pages show it. */
export interface SaleAuthentication {
  authenticate: boolean;
  dataOnly: boolean;
  cavv: string | undefined;
  xid: string | undefined;
  eci: string;
  version: string;
  referenceId: string | undefined;
}

export type Validation = { ok: true; sale: SaleInput } | { ok: false; errors: CieloError[] };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Cielo binds JSON the ASP.NET way: property names match ignoring case ("merchantOrderId" works too). */
function field(object: Json | undefined, name: string): unknown {
  if (!object) return undefined;
  if (name in object) return object[name];
  const lower = name.toLowerCase();
  for (const key of Object.keys(object)) if (key.toLowerCase() === lower) return object[key];
  return undefined;
}

/** A string, or a number the binder would turn into one (MerchantOrderId: 123). */
function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * Checks a sale the way Cielo refuses one before it reaches the card network, collecting every
 * problem (Cielo answers all of them in one array). `now` decides whether an expiration is past.
 */
export function validateSale(body: unknown, now: Date): Validation {
  // UNCONFIRMED: malformed JSON and a non-object body get 184, as an empty body does (the binder
  // hands Cielo no request at all in both cases).
  if (!isObject(body)) return { ok: false, errors: [CIELO_ERRORS.requestEmpty] };
  const errors: CieloError[] = [];

  const merchantOrderId = text(field(body, 'MerchantOrderId'))?.trim() ?? '';
  if (merchantOrderId === '') errors.push(CIELO_ERRORS.merchantOrderIdRequired);
  // The reference sizes MerchantOrderId at 50 characters; 107 is its "exceeds size" code.
  else if (merchantOrderId.length > 50) errors.push(CIELO_ERRORS.orderIdInvalid);

  const customer = field(body, 'Customer');
  const customerName = isObject(customer) ? text(field(customer, 'Name')) : undefined;
  if (customerName !== undefined && customerName.length > 255) errors.push(CIELO_ERRORS.customerNameTooLong);

  const payment = field(body, 'Payment');
  if (!isObject(payment)) return { ok: false, errors: [...errors, CIELO_ERRORS.paymentRequired] };

  const type = text(field(payment, 'Type'));
  if (type === undefined || type.trim() === '') errors.push(CIELO_ERRORS.paymentTypeRequired);
  // UNCONFIRMED: another real payment type (DebitCard, Pix...) is "not enabled" for this merchant.
  else if (type.toLowerCase() !== 'creditcard') errors.push(CIELO_ERRORS.paymentMethodNotEnabled);

  // Money is integer cents; Cielo refuses 0 too ("not possible to perform a transaction with an Amount of 0").
  const amount = field(payment, 'Amount');
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0) errors.push(CIELO_ERRORS.amountInvalid);

  const installments = field(payment, 'Installments');
  if (typeof installments !== 'number' || !Number.isSafeInteger(installments) || installments < 1) {
    errors.push(CIELO_ERRORS.installmentsInvalid);
  } else if (installments > MAX_INSTALLMENTS) {
    // UNCONFIRMED: the code for "more than 12". 186 is the table's "provider does not support the options (Installments)".
    errors.push(CIELO_ERRORS.optionsNotSupported);
  }

  const captureField = field(payment, 'Capture');
  const capture = captureField === true || captureField === 'true';
  const softDescriptor = text(field(payment, 'SoftDescriptor'));

  const card = field(payment, 'CreditCard');
  if (!isObject(card)) return { ok: false, errors: [...errors, CIELO_ERRORS.creditCardRequired] };

  const cardNumber = text(field(card, 'CardNumber')) ?? '';
  if (cardNumber === '') errors.push(CIELO_ERRORS.cardNumberRequired);
  else if (cardNumber.length > 19) errors.push(CIELO_ERRORS.cardNumberTooLong);
  // The sandbox takes any digits (Luhn is checked only when a card is saved); 12 is the shortest PAN.
  else if (!/^\d{12,19}$/.test(cardNumber)) errors.push(CIELO_ERRORS.cardNumberInvalid);

  const holder = text(field(card, 'Holder'))?.trim() ?? '';
  if (holder === '') errors.push(CIELO_ERRORS.holderRequired);

  const expirationDate = text(field(card, 'ExpirationDate'))?.trim() ?? '';
  if (expirationDate === '') errors.push(CIELO_ERRORS.expirationRequired);
  else if (!validExpiration(expirationDate, now)) errors.push(CIELO_ERRORS.expirationInvalid);

  const securityCode = field(card, 'SecurityCode');
  if (securityCode !== undefined && securityCode !== null && !/^\d{3,4}$/.test(text(securityCode) ?? '')) {
    errors.push(CIELO_ERRORS.securityCodeTooLong);
  }

  const brandField = text(field(card, 'Brand'))?.trim() ?? '';
  const brand = CIELO_BRANDS.find((name) => name.toLowerCase() === brandField.toLowerCase());
  if (brandField === '') errors.push(CIELO_ERRORS.brandRequired);
  else if (!brand) errors.push(CIELO_ERRORS.brandNotSupported);

  const authentication = authenticationOf(payment, errors);
  if (errors.length > 0 || !brand) return { ok: false, errors };
  return {
    ok: true,
    sale: {
      merchantOrderId,
      customerName,
      hasCustomer: isObject(customer),
      amount: amount as number,
      installments: installments as number,
      capture,
      softDescriptor,
      cardNumber,
      holder,
      expirationDate,
      brand,
      authentication,
    },
  };
}

/**
 * `Payment.Authenticate` and `Payment.ExternalAuthentication`: an authenticated sale carries
 * Cavv, Eci (one digit, as Cielo's examples write it: "5"), Version and ReferenceId (the 3DS
 * server's transaction); a Data Only one has Authenticate false and `DataOnly: true`, with its
 * Eci and Version and no Cavv.
 */
function authenticationOf(payment: Json, errors: CieloError[]): SaleAuthentication | undefined {
  const authenticateField = field(payment, 'Authenticate');
  const authenticate = authenticateField === true || authenticateField === 'true';
  const node = field(payment, 'ExternalAuthentication');
  if (!isObject(node)) {
    if (authenticate) errors.push(CIELO_ERRORS.externalAuthenticationRequired);
    return undefined;
  }
  const dataOnlyField = field(node, 'DataOnly');
  const dataOnly = dataOnlyField === true || dataOnlyField === 'true';
  const cavv = text(field(node, 'Cavv'));
  const eci = text(field(node, 'Eci')) ?? '';
  const version = text(field(node, 'Version')) ?? '';
  const referenceId = text(field(node, 'ReferenceId'));
  const xid = text(field(node, 'Xid'));
  if (dataOnly && authenticate) errors.push(CIELO_ERRORS.dataOnlyWithAuthenticate);
  const eciOk = /^[0-9]$/.test(eci);
  const versionOk = /^[12](\.[0-9]+){0,2}$/.test(version);
  const cavvOk = dataOnly ? cavv === undefined : cavv !== undefined && /^[A-Za-z0-9+/]{27,28}=?$/.test(cavv);
  const referenceOk = dataOnly || referenceId === undefined || /^[0-9a-fA-F-]{36}$/.test(referenceId);
  if (!eciOk || !versionOk || !cavvOk || !referenceOk || (!dataOnly && !authenticate)) errors.push(CIELO_ERRORS.externalAuthenticationInvalid);
  return { authenticate, dataOnly, cavv, xid, eci, version, referenceId };
}

/** "MM/YYYY", a real month, not before the current one (Brasília time). */
function validExpiration(value: string, now: Date): boolean {
  const match = /^(0[1-9]|1[0-2])\/(\d{4})$/.exec(value);
  if (!match) return false;
  const month = Number(match[1]);
  const year = Number(match[2]);
  const today = brasilia(now);
  const currentYear = today.getUTCFullYear();
  const currentMonth = today.getUTCMonth() + 1;
  return year > currentYear || (year === currentYear && month >= currentMonth);
}

/** A sale's result as Cielo reports it: `Payment.Status`, `ReturnCode`, `ReturnMessage`. */
export interface Outcome {
  status: number;
  returnCode: string;
  returnMessage: string;
}

export const STATUS = { authorized: 1, paymentConfirmed: 2, denied: 3, voided: 10 } as const;

export const isApproved = (status: number) => status === STATUS.authorized || status === STATUS.paymentConfirmed;

const SUCCESS_MESSAGE = 'Operation Successful';

/** Approved: 2 (PaymentConfirmed, ReturnCode 6) when captured at once, else 1 (Authorized, ReturnCode 4). */
export function approvedOutcome(capture: boolean): Outcome {
  return capture
    ? { status: STATUS.paymentConfirmed, returnCode: '6', returnMessage: SUCCESS_MESSAGE }
    : { status: STATUS.authorized, returnCode: '4', returnMessage: SUCCESS_MESSAGE };
}

/** Cielo's sandbox table for credit cards, by the card number's last digit (0, 1, 4 approve; 9 is a coin toss). */
const SANDBOX_DECLINES: Record<string, [returnCode: string, message: string]> = {
  '2': ['05', 'Not Authorized'],
  '3': ['57', 'Card Expired'],
  '5': ['78', 'Card Locked'],
  '6': ['99', 'Time Out'],
  '7': ['77', 'Card Canceled'],
  '8': ['70', 'Problems with Creditcard'],
};

export function sandboxOutcome(cardNumber: string, capture: boolean, random: () => number): Outcome {
  const digit = cardNumber.slice(-1);
  if (digit === '9') {
    return random() < 0.5 ? approvedOutcome(capture) : { status: STATUS.denied, returnCode: '99', returnMessage: 'Time Out' };
  }
  const decline = SANDBOX_DECLINES[digit];
  return decline ? { status: STATUS.denied, returnCode: decline[0], returnMessage: decline[1] } : approvedOutcome(capture);
}

/** Cielo echoes the card as its first 6 and last 4 digits with the middle starred (16 digits: 6 stars). */
export function maskCardNumber(cardNumber: string): string {
  return cardNumber.slice(0, 6) + '*'.repeat(Math.max(cardNumber.length - 10, 0)) + cardNumber.slice(-4);
}

/** Brazil has kept UTC-3 all year since 2019; Cielo's dates are Brasília wall-clock time. */
function brasilia(date: Date): Date {
  return new Date(date.getTime() - 3 * 60 * 60 * 1000);
}

/** Cielo's date format: "YYYY-MM-DD HH:mm:ss", Brasília time. */
export function cieloDate(date: Date): string {
  return brasilia(date).toISOString().slice(0, 19).replace('T', ' ');
}

/** Tid as Cielo's look: MMddHHmmss, then a per-process sequence so no two sales share one. */
export function makeTid(date: Date, sequence: number): string {
  const iso = brasilia(date).toISOString();
  const stamp = iso.slice(5, 7) + iso.slice(8, 10) + iso.slice(11, 13) + iso.slice(14, 16) + iso.slice(17, 19);
  return stamp + String(sequence % 1_000_000).padStart(6, '0');
}

/** What the stand-in keeps of a sale: the masked card only, never the number or the security code. */
export interface SaleRecord {
  paymentId: string;
  merchantOrderId: string;
  customerName: string | undefined;
  hasCustomer: boolean;
  amount: number;
  installments: number;
  capture: boolean;
  softDescriptor: string | undefined;
  maskedCardNumber: string;
  holder: string;
  expirationDate: string;
  brand: CieloBrand;
  authentication: SaleAuthentication | undefined;
  tid: string;
  proofOfSale: string;
  authorizationCode: string | undefined;
  approved: boolean;
  status: number;
  returnCode: string;
  returnMessage: string;
  receivedDate: string;
  capturedAmount: number | undefined;
  capturedDate: string | undefined;
  voidedAmount: number;
  voidedDate: string | undefined;
  requestId: string | null;
}

export interface Bases {
  apiUrl: string;
  queryUrl: string;
}

export interface Link {
  Method: 'GET' | 'PUT';
  Rel: string;
  Href: string;
}

/** HATEOAS links as Cielo lists them: self on the query API, then what can still be done on the transactional one. */
export function saleLinks(sale: SaleRecord, bases: Bases): Link[] {
  const links: Link[] = [{ Method: 'GET', Rel: 'self', Href: `${bases.queryUrl}/1/sales/${sale.paymentId}` }];
  if (sale.status === STATUS.authorized) {
    links.push({ Method: 'PUT', Rel: 'capture', Href: `${bases.apiUrl}/1/sales/${sale.paymentId}/capture` });
  }
  if (isApproved(sale.status)) links.push({ Method: 'PUT', Rel: 'void', Href: `${bases.apiUrl}/1/sales/${sale.paymentId}/void` });
  return links;
}

/** The sale as `POST /1/sales/` answers it and `GET /1/sales/{PaymentId}` shows it (with its current status). */
export function saleBody(sale: SaleRecord, bases: Bases): Json {
  const payment: Json = {
    ServiceTaxAmount: 0,
    Installments: sale.installments,
    Interest: 0,
    Capture: sale.capture,
    Authenticate: sale.authentication?.authenticate ?? false,
    ...(sale.authentication
      ? {
          ExternalAuthentication: {
            ...(sale.authentication.cavv ? { Cavv: sale.authentication.cavv } : {}),
            ...(sale.authentication.xid ? { Xid: sale.authentication.xid } : {}),
            Eci: sale.authentication.eci,
            Version: sale.authentication.version,
            ...(sale.authentication.referenceId ? { ReferenceId: sale.authentication.referenceId } : {}),
            ...(sale.authentication.dataOnly ? { DataOnly: true } : {}),
          },
        }
      : {}),
    Recurrent: false,
    CreditCard: {
      CardNumber: sale.maskedCardNumber,
      Holder: sale.holder,
      ExpirationDate: sale.expirationDate,
      SaveCard: false,
      Brand: sale.brand,
    },
    Tid: sale.tid,
    ProofOfSale: sale.proofOfSale,
    ...(sale.authorizationCode === undefined ? {} : { AuthorizationCode: sale.authorizationCode }),
    ...(sale.softDescriptor === undefined ? {} : { SoftDescriptor: sale.softDescriptor }),
    Provider: 'Simulado',
    PaymentId: sale.paymentId,
    Type: 'CreditCard',
    Amount: sale.amount,
    ReceivedDate: sale.receivedDate,
    ...(sale.capturedAmount === undefined ? {} : { CapturedAmount: sale.capturedAmount, CapturedDate: sale.capturedDate }),
    ...(sale.voidedAmount === 0 ? {} : { VoidedAmount: sale.voidedAmount, VoidedDate: sale.voidedDate }),
    Currency: 'BRL',
    Country: 'BRA',
    ReturnCode: sale.returnCode,
    ReturnMessage: sale.returnMessage,
    Status: sale.status,
    Links: saleLinks(sale, bases),
  };
  return {
    MerchantOrderId: sale.merchantOrderId,
    ...(sale.hasCustomer ? { Customer: sale.customerName === undefined ? {} : { Name: sale.customerName } } : {}),
    Payment: payment,
  };
}

/** The answer to a capture or a void (`PUT .../capture`, `PUT .../void`). */
export function operationBody(sale: SaleRecord, returnCode: string, bases: Bases): Json {
  return {
    Status: sale.status,
    ReasonCode: 0,
    ReasonMessage: 'Successful',
    ProviderReturnCode: returnCode,
    ProviderReturnMessage: SUCCESS_MESSAGE,
    ReturnCode: returnCode,
    ReturnMessage: SUCCESS_MESSAGE,
    Tid: sale.tid,
    ProofOfSale: sale.proofOfSale,
    ...(sale.authorizationCode === undefined ? {} : { AuthorizationCode: sale.authorizationCode }),
    Links: saleLinks(sale, bases),
  };
}

/**
 * `POST /1/zeroauth` (Cielo's "Validar cartão com o Zero Auth"): CardNumber, Holder,
 * ExpirationDate, Brand required; SecurityCode and CardOnFile {Usage, Reason} optional. The
 * answer is `{Valid, ReturnCode, ReturnMessage, IssuerTransactionId}`; 00 valid, 57 refused
 * (Cielo's zero auth return codes table). UNCONFIRMED: the sandbox's outcome follows the card
 * number's last digit as a sale does (0, 1, 4 valid), since Cielo's sandbox page gives only two
 * valid test cards.
 */
export interface ZeroAuthInput {
  cardNumber: string;
  holder: string;
  expirationDate: string;
  brand: CieloBrand;
  securityCode: string | undefined;
  cardOnFile: { usage?: string; reason?: string } | undefined;
}

export function validateZeroAuth(body: unknown, now: Date): { ok: true; input: ZeroAuthInput } | { ok: false; errors: CieloError[] } {
  if (!isObject(body)) return { ok: false, errors: [CIELO_ERRORS.requestEmpty] };
  const errors: CieloError[] = [];
  const cardNumber = text(field(body, 'CardNumber')) ?? '';
  if (cardNumber === '') errors.push(CIELO_ERRORS.cardNumberRequired);
  else if (!/^\d{12,19}$/.test(cardNumber)) errors.push(CIELO_ERRORS.cardNumberInvalid);
  const holder = text(field(body, 'Holder'))?.trim() ?? '';
  if (holder === '') errors.push(CIELO_ERRORS.holderRequired);
  const expirationDate = text(field(body, 'ExpirationDate'))?.trim() ?? '';
  if (expirationDate === '') errors.push(CIELO_ERRORS.expirationRequired);
  else if (!validExpiration(expirationDate, now)) errors.push(CIELO_ERRORS.expirationInvalid);
  const securityCode = text(field(body, 'SecurityCode'));
  if (securityCode !== undefined && !/^\d{3,4}$/.test(securityCode)) errors.push(CIELO_ERRORS.securityCodeTooLong);
  const brandField = text(field(body, 'Brand'))?.trim() ?? '';
  const brand = CIELO_BRANDS.find((name) => name.toLowerCase() === brandField.toLowerCase());
  if (brandField === '') errors.push(CIELO_ERRORS.brandRequired);
  else if (!brand) errors.push(CIELO_ERRORS.brandNotSupported);
  const onFile = field(body, 'CardOnFile');
  const cardOnFile = isObject(onFile) ? { usage: text(field(onFile, 'Usage')), reason: text(field(onFile, 'Reason')) } : undefined;
  if (errors.length > 0 || !brand) return { ok: false, errors };
  return { ok: true, input: { cardNumber, holder, expirationDate, brand, securityCode, cardOnFile } };
}

/**
 * The stored-credential fields of a sale as the stand-in checks them (Cielo's "Transaction
 * Initiator Indicator (CIT and MIT)"): `Payment.InitiatedTransactionIndicator {Category,
 * Subcategory}` with Category C1, M1 or M2, `Payment.Recurrent`, `Payment.IssuerTransactionId`,
 * `CreditCard.CardOnFile {Usage, Reason}`. M1 and M2 are merchant-initiated: the card must be
 * stored (CardOnFile.Usage Used).
 */
export interface StoredCredentialFields {
  category: string | undefined;
  subcategory: string | undefined;
  recurrent: boolean;
  issuerTransactionId: string | undefined;
  cardOnFileUsage: string | undefined;
  cardOnFileReason: string | undefined;
}

export const INDICATOR_CATEGORIES = ['C1', 'M1', 'M2'] as const;

export function storedCredentialFieldsOf(body: unknown): StoredCredentialFields {
  const payment = isObject(body) ? field(body, 'Payment') : undefined;
  const p = isObject(payment) ? payment : undefined;
  const indicator = field(p, 'InitiatedTransactionIndicator');
  const card = field(p, 'CreditCard');
  const onFile = isObject(card) ? field(card, 'CardOnFile') : undefined;
  const recurrent = field(p, 'Recurrent');
  return {
    category: isObject(indicator) ? text(field(indicator, 'Category')) : undefined,
    subcategory: isObject(indicator) ? text(field(indicator, 'Subcategory')) : undefined,
    recurrent: recurrent === true || recurrent === 'true',
    issuerTransactionId: text(field(p, 'IssuerTransactionId')),
    cardOnFileUsage: isObject(onFile) ? text(field(onFile, 'Usage')) : undefined,
    cardOnFileReason: isObject(onFile) ? text(field(onFile, 'Reason')) : undefined,
  };
}

/** Why the stand-in refuses a sale's stored-credential fields (Cielo's error for a bad indicator is not published: 400 with this message), or null. */
export function storedCredentialProblem(fields: StoredCredentialFields): CieloError | null {
  if (fields.category === undefined) return null;
  if (!(INDICATOR_CATEGORIES as readonly string[]).includes(fields.category)) return { Code: 999, Message: 'InitiatedTransactionIndicator.Category is invalid' };
  if (!fields.subcategory) return { Code: 999, Message: 'InitiatedTransactionIndicator.Subcategory is required' };
  if (fields.category !== 'C1' && fields.cardOnFileUsage !== 'Used') return { Code: 999, Message: 'A merchant-initiated transaction must use a stored credential (CardOnFile.Usage Used)' };
  return null;
}
