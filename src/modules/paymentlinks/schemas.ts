import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { MAX_INSTALLMENTS } from '../../domain/installments.js';
import { EXAMPLES } from '../../http/examples.js';

export const GUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** Decimals arrive as JSON numbers (contract section 2); a string keeps digits a float would lose. */
const Decimal = (description: string) =>
  Type.Union([Type.Number(), Type.String({ maxLength: 20 })], { description });
const Count = Type.Integer({ minimum: 1, maximum: MAX_INSTALLMENTS });

export const CreatePaymentLinkBody = Type.Object({
  description: Type.String({ minLength: 1, maxLength: 255 }),
  value: Decimal('Amount in reais, > 0, at most 2 decimals'),
  qttyInstallments: Type.Optional({ ...Count, description: 'Maximum installments (1..n are offered); not with qttyInstallmentsCustom' }),
  qttyInstallmentsCustom: Type.Optional(
    Type.Array(Count, { minItems: 1, maxItems: MAX_INSTALLMENTS, uniqueItems: true, description: 'Explicit installment counts offered; not with qttyInstallments' }),
  ),
  qttyInstallmentsIntFree: Type.Optional(
    Type.Integer({ minimum: 0, maximum: MAX_INSTALLMENTS, description: 'Installment counts up to this are interest-free; 1..largest offered count. Default: all when there is no fee, else 1' }),
  ),
  installmentsFee: Type.Optional(Decimal('Monthly compound interest in percent (0..100, 4 decimals) beyond the interest-free count; Price table')),
  expirationDate: Type.String({ format: 'date-time', description: 'ISO 8601 with zone, in the future' }),
  message: Type.Optional(Type.String({ maxLength: 500, description: 'Text for the payer, shown on the checkout page' })),
}, { examples: [EXAMPLES.createPaymentLink] });
export type CreatePaymentLinkBody = Static<typeof CreatePaymentLinkBody>;

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const HistoryEntry = Type.Object({
  id: Type.String(),
  idPaymentLink: Type.String(),
  reason: Type.Union([Type.String(), Type.Null()]),
  historyDate: Type.String({ format: 'date-time' }),
  status: Type.Integer(),
  statusFormat: Type.String(),
});

export const PaymentLinkView = Type.Object({
  id: Type.String(),
  sellerDocumentNumber: Type.String(),
  sellerName: Type.String(),
  description: Type.String(),
  value: Type.Number(),
  qttyInstallments: Type.Union([Type.Integer(), Type.Null()]),
  qttyInstallmentsCustom: Type.Union([Type.Array(Type.Integer()), Type.Null()]),
  qttyInstallmentsIntFree: Type.Integer(),
  installmentsFee: Type.Number(),
  operationDate: Type.String({ format: 'date-time' }),
  expirationDate: Type.String({ format: 'date-time' }),
  link: Type.String(),
  message: Nullable(Type.String()),
  status: Type.Integer(),
  statusFormat: Type.String(),
  paymentDate: Nullable(Type.String({ format: 'date-time' })),
  paymentValue: Type.Union([Type.Number(), Type.Null()]),
  paymentQttyInstallments: Type.Union([Type.Integer(), Type.Null()]),
  paymentAuthorizationCode: Nullable(Type.String()),
  paymentResultId: Nullable(Type.String()),
  history: Type.Array(HistoryEntry),
});
export type PaymentLinkView = Static<typeof PaymentLinkView>;

export const InformationQuery = Type.Object({ id: Type.String({ pattern: GUID, description: 'Payment link id (GUID)' }) });
export const LinkIdParams = Type.Object({ id: Type.String({ pattern: GUID }) });

/** What the checkout page sends: the card only as encryptedCard, never in clear. */
export const CheckoutPaymentBody = Type.Object({
  encryptedCard: Type.String({ minLength: 1, maxLength: 2048, description: 'Base64 RSA-OAEP (SHA-256) of {number, expirationMonth, expirationYear, securityCode}' }),
  cardholderName: Type.String({ minLength: 1, maxLength: 30 }),
  installments: Count,
  email: Type.Optional(Type.String({ maxLength: 255, format: 'email' })),
  documentNumber: Type.Optional(Type.String({ maxLength: 20, description: 'CPF or CNPJ of the payer, digits only' })),
  deviceInfo: Type.Optional(
    Type.Object(
      {
        browserColorDepth: Type.String({ maxLength: 2 }),
        browserJavaEnabled: Type.Boolean(),
        browserLanguage: Type.String({ maxLength: 35 }),
        browserScreenHeight: Type.String({ maxLength: 6 }),
        browserScreenWidth: Type.String({ maxLength: 6 }),
        browserTimeZone: Type.String({ maxLength: 5 }),
        browserUserAgent: Type.String({ maxLength: 2048 }),
      },
      { description: "The payer's browser (the page sends it): with a 3DS server configured, the payer is authenticated with 3-D Secure" },
    ),
  ),
});
export type CheckoutPaymentBody = Static<typeof CheckoutPaymentBody>;

export const CheckoutPaymentResult = Type.Object({
  paid: Type.Boolean(),
  paymentId: Type.String(),
  status: Type.String({ description: 'The payment status: Authorized, Blocked, Denied, or PendingAuthentication while the payer passes the 3-D Secure challenge' }),
  returnCode: Type.Union([Type.String(), Type.Null()]),
  message: Type.String({ description: 'Text for the payer, in Portuguese' }),
  authorizationCode: Type.Union([Type.String(), Type.Null()]),
  maskedCardNumber: Type.String(),
  installments: Type.Integer(),
  amount: Type.Number({ description: 'Total charged, in reais' }),
  linkStatus: Type.Integer(),
  linkStatusFormat: Type.String(),
  threeDs: Type.Optional(
    Type.Object({
      status: Type.String({ description: 'Silent, Attempt, Challenge or Fail' }),
      liabilityShift: Type.Boolean(),
      acsUrl: Type.Optional(Type.String({ description: "While the challenge is open (status PendingAuthentication): the page posts creq there, in a frame" })),
      creq: Type.Optional(Type.String()),
    }),
  ),
});
export type CheckoutPaymentResult = Static<typeof CheckoutPaymentResult>;
