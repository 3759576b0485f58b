import { Type, type Static } from '@sinclair/typebox';
import { EXAMPLES } from '../../http/examples.js';

/** The seed's card payment body (gateway-api.md "Card payment"), sizes as its field table says. */
const GUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export const PaymentBody = Type.Object({
  payment: Type.Object({
    transactionType: Type.Literal('credit'),
    amount: Type.Integer({ minimum: 1, maximum: 9_999_999_999, description: 'Order amount in cents (up to 10 digits)' }),
    productType: Type.Union([Type.Literal('avista'), Type.Literal('lojista')], { description: 'avista when installments is 1, lojista otherwise' }),
    installments: Type.Integer({ minimum: 1, maximum: 12 }),
  }),
  referenceTransaction: Type.Optional(Type.String({ maxLength: 50 })),
  urlCallBack: Type.Optional(Type.String({ maxLength: 500, description: 'Absolute http(s) URL that receives each status change' })),
  sellerInfo: Type.Object({
    codeAntiFraud: Type.String({ pattern: GUID, maxLength: 36, description: 'GUID from the anti-fraud library' }),
  }),
  configSplit: Type.Optional(
    Type.Array(
      Type.Object({
        documentNumberBeneficiary: Type.String({ maxLength: 14, description: 'CPF or CNPJ (alphanumeric allowed), no mask' }),
        percent: Type.Number({ minimum: 0, maximum: 100, description: 'Up to 2 decimals' }),
        type: Type.Union([Type.Literal('bruto'), Type.Literal('liquido')]),
      }),
      { maxItems: 20 },
    ),
  ),
  cardInfo: Type.Object({
    numberToken: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    encryptedCard: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    vaultId: Type.Optional(Type.String({ minLength: 1, maxLength: 36, description: 'Extension: a stored card' })),
    cardholderName: Type.String({ minLength: 1, maxLength: 30 }),
    securityCode: Type.Optional(Type.String({ pattern: '^[0-9]{3,4}$', maxLength: 4 })),
    brand: Type.Optional(Type.Union(['visa', 'mastercard', 'amex', 'elo', 'hipercard'].map((b) => Type.Literal(b)))),
    expirationMonth: Type.Optional(Type.String({ pattern: '^[0-9]{2}$', maxLength: 2 })),
    expirationYear: Type.Optional(Type.String({ pattern: '^[0-9]{2}$', maxLength: 2 })),
  }),
  threeDs: Type.Optional(
    Type.Object({
      authenticationType: Type.Optional(Type.Union(['01', '02', '03', '04'].map((v) => Type.Literal(v)), { description: '01 no preference (default), 02 no challenge wanted, 03 challenge wanted, 04 challenge mandated' })),
      code3DS: Type.Optional(Type.String({ pattern: GUID, maxLength: 36, description: "The integrator's GUID for this authentication flow" })),
      returnUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: "Where the buyer's browser is sent after a challenge (https outside the sandbox)" })),
      dataOnly: Type.Optional(Type.Boolean({ description: 'Send the data to the issuer with no authentication and no liability shift' })),
      external: Type.Optional(
        Type.Object(
          {
            cavv: Type.String({ maxLength: 64 }),
            eci: Type.String({ maxLength: 4 }),
            version: Type.String({ maxLength: 10 }),
            xid: Type.Optional(Type.String({ maxLength: 64 })),
            dsTransactionId: Type.Optional(Type.String({ maxLength: 36 })),
          },
          { description: "An authentication done elsewhere (the merchant's 3DS server, the acquirer's script): sent to the acquirer with the authorization" },
        ),
      ),
    }, { description: '3-D Secure 2: the gateway authenticates the buyer (with deviceInfo), or takes an external authentication' }),
  ),
  deviceInfo: Type.Optional(
    Type.Object(
      {
        browserAcceptHeader: Type.Optional(Type.String({ maxLength: 2048 })),
        browserColorDepth: Type.Optional(Type.Union([Type.String({ maxLength: 2 }), Type.Integer({ minimum: -99999, maximum: 999999 })])),
        browserJavaEnabled: Type.Optional(Type.Boolean()),
        browserLanguage: Type.Optional(Type.String({ maxLength: 35 })),
        browserScreenHeight: Type.Optional(Type.Union([Type.String({ maxLength: 6 }), Type.Integer({ minimum: -99999, maximum: 999999 })])),
        browserScreenWidth: Type.Optional(Type.Union([Type.String({ maxLength: 6 }), Type.Integer({ minimum: -99999, maximum: 999999 })])),
        browserTimeZone: Type.Optional(Type.Union([Type.String({ maxLength: 5 }), Type.Integer({ minimum: -99999, maximum: 999999 })])),
        browserUserAgent: Type.Optional(Type.String({ maxLength: 2048 })),
        httpBrowserIp: Type.Optional(Type.String({ maxLength: 45 })),
      },
      { description: "The buyer's browser (EMVCo's browser data): every field is required when the gateway runs the authentication" },
    ),
  ),
  customer: Type.Optional(
    Type.Object({
      documentType: Type.Optional(Type.Union([Type.Literal('cpf'), Type.Literal('cnpj')])),
      documentNumber: Type.Optional(Type.String({ maxLength: 20 })),
      firstName: Type.Optional(Type.String({ maxLength: 60 })),
      lastName: Type.Optional(Type.String({ maxLength: 60 })),
      email: Type.Optional(Type.String({ maxLength: 255, format: 'email' })),
      phoneNumber: Type.Optional(Type.String({ maxLength: 15 })),
      mobilePhoneNumber: Type.Optional(Type.String({ maxLength: 25 })),
      address: Type.Optional(Type.String({ maxLength: 60 })),
      complement: Type.Optional(Type.String({ maxLength: 60 })),
      city: Type.Optional(Type.String({ maxLength: 50 })),
      state: Type.Optional(Type.String({ maxLength: 2 })),
      zipCode: Type.Optional(Type.String({ maxLength: 10 })),
      ipAddress: Type.Optional(Type.String({ maxLength: 48 })),
      country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', maxLength: 2 })),
    }),
  ),
}, { examples: [EXAMPLES.createPayment] });
export type PaymentBody = Static<typeof PaymentBody>;

export const ThreeDsResult = Type.Object({
  status: Type.Union(['Silent', 'Attempt', 'Challenge', 'Fail'].map((s) => Type.Literal(s)), {
    description: 'Silent: authenticated without friction; Attempt: attempted (eci 06 or 01); Challenge: challenged (pending while the payment is PendingAuthentication); Fail: not authenticated, the payment is Denied',
  }),
  eci: Type.Union([Type.String(), Type.Null()]),
  version: Type.Union([Type.String(), Type.Null()]),
  liabilityShift: Type.Boolean({ description: 'The issuer carries the fraud liability of this sale' }),
  acsUrl: Type.Optional(Type.String({ description: "While the challenge is open: where the buyer's browser posts creq" })),
  creq: Type.Optional(Type.String()),
  transactionId: Type.Optional(Type.String({ description: "The 3DS server's transaction id" })),
});

export const PaymentResult = Type.Object({
  paymentId: Type.String(),
  status: Type.Union(['Authorized', 'Denied', 'Blocked', 'Canceled', 'Paid', 'Pending', 'PendingAuthentication'].map((s) => Type.Literal(s)), {
    description: "PendingAuthentication: the buyer's browser must pass the 3-D Secure challenge (threeDs.acsUrl, threeDs.creq)",
  }),
  returnCode: Type.Union([Type.String(), Type.Null()]),
  returnMessage: Type.Union([Type.String(), Type.Null()]),
  authorizationCode: Type.Union([Type.String(), Type.Null()]),
  nsu: Type.Union([Type.String(), Type.Null()]),
  amount: Type.Integer(),
  installments: Type.Integer(),
  productType: Type.String(),
  brand: Type.String(),
  maskedCardNumber: Type.String(),
  referenceTransaction: Type.Union([Type.String(), Type.Null()]),
  antiFraud: Type.Object({ decision: Type.String(), score: Type.Integer() }),
  splits: Type.Array(
    Type.Object({ documentNumberBeneficiary: Type.String(), type: Type.String(), percent: Type.Number(), amount: Type.Integer() }),
  ),
  refundedAmount: Type.Integer({ description: 'Cents refunded so far; refunded in full, the payment is Canceled' }),
  threeDs: Type.Optional(ThreeDsResult),
  createdAt: Type.String({ format: 'date-time' }),
  declineCategory: Type.Optional(Type.Union([Type.Literal('retryable'), Type.Literal('final')], { description: 'A Denied payment: whether its card may be tried again (ABECS Normativo 21); final means never retry it' })),
});
export type PaymentResult = Static<typeof PaymentResult>;

export const PaymentIdParams = Type.Object({ paymentId: Type.String({ minLength: 1, maxLength: 36 }) });

export const RefundBody = Type.Object({
  amount: Type.Optional(Type.Integer({ minimum: 1, maximum: 9_999_999_999, description: 'Cents to refund; by default what is left of the payment' })),
});
export type RefundBody = Static<typeof RefundBody>;

export const RefundResult = Type.Object({
  refundId: Type.String(),
  paymentId: Type.String(),
  amount: Type.Integer({ description: 'Cents' }),
  status: Type.Union(['Succeeded', 'Pending', 'Failed'].map((s) => Type.Literal(s)), {
    description: 'Pending: the acquirer\'s answer was lost; it is resolved from the acquirer\'s record (GET the list, or wait for payment.refunded or refund.failed)',
  }),
  returnMessage: Type.Union([Type.String(), Type.Null()], { description: 'Why a Failed refund failed (nothing was refunded)' }),
  createdAt: Type.String({ format: 'date-time' }),
});
export type RefundResult = Static<typeof RefundResult>;

export const RefundList = Type.Object({ items: Type.Array(RefundResult) });
export type RefundList = Static<typeof RefundList>;
