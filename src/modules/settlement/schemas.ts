import { Type } from '@sinclair/typebox';
import { EXAMPLES } from '../../http/examples.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const Percent = Type.Number({ minimum: 0, maximum: 100, description: 'Percent, up to 4 decimals' });
const Fee = Type.Number({ minimum: 0, description: 'Reais, up to 2 decimals' });

export const Pricing = Type.Object({
  mdr: Type.Object({ credit1x: Percent, credit2to6: Percent, credit7to12: Percent, pix: Percent }),
  transactionFee: Fee,
  antifraudFee: Fee,
  prepayment: Type.Object({ monthlyRate: Percent, automatic: Type.Boolean() }),
});

export const PricingPatch = Type.Object({
  mdr: Type.Optional(Type.Partial(Type.Object({ credit1x: Type.Number(), credit2to6: Type.Number(), credit7to12: Type.Number(), pix: Type.Number() }))),
  transactionFee: Type.Optional(Type.Number()),
  antifraudFee: Type.Optional(Type.Number()),
  prepayment: Type.Optional(Type.Partial(Type.Object({ monthlyRate: Type.Number(), automatic: Type.Boolean() }))),
}, { examples: [EXAMPLES.updatePricing] });

const D4 = Type.Number({ description: 'decimal 10,4' });

export const InstallmentRecord = Type.Object({
  transactionDate: Type.String({ format: 'date-time' }),
  terminal: Type.String(),
  cardNumber: Nullable(Type.String({ description: 'first 4 + 7 * + last 4; null for Pix' })),
  cardType: Type.String(),
  cardName: Type.String(),
  codAuth: Type.String(),
  nsu: Type.String(),
  installmentNumber: Type.Integer({ description: '0 for a refund\'s debit (receivedType D)' }),
  installmentsCount: Type.Integer(),
  installmentValue: D4,
  transactionTotalValue: D4,
  installmentStatus: Type.String({ description: 'A approved, B blocked, C cancelled' }),
  discountMdrValue: D4,
  discountMdrTax: D4,
  discountTrnRateInstalmentValue: D4,
  discountTrnRateTransactionValue: D4,
  discountAntifraudRateInstalmentValue: D4,
  discountAntifraudRateTransactionValue: D4,
  discountAntecipationValue: D4,
  discountAntecipationTax: D4,
  receivedValue: D4,
  receivedDateForeast: Type.String({ format: 'date-time' }),
  receivedDateEffective: Nullable(Type.String({ format: 'date-time' })),
  receivedType: Type.String({ description: 'R regular, A one-off prepayment, E automatic prepayment; D (extension) a refund\'s debit against the next receivables, negative values' }),
  receivedStatus: Type.String({ description: 'A open, P paid' }),
  transactionReference: Nullable(Type.String()),
  transactionPaymentIdWeb: Type.String(),
  splits: Type.Optional(
    Type.Array(Type.Object({ beneficiario: Type.String(), tipoSplit: Type.String(), pctSplit: D4, valorBaseSplit: D4, valorSplit: D4 })),
  ),
});

export const SummaryRecord = Type.Object({
  transactionDate: Type.String({ format: 'date-time' }),
  terminal: Type.String(),
  cardNumber: Nullable(Type.String()),
  cardType: Type.String(),
  cardName: Type.String(),
  nsu: Type.String(),
  codAuth: Type.String(),
  installments: Type.Integer(),
  amount: D4,
  transactionStatus: Type.String(),
  transactionReference: Nullable(Type.String()),
  transactionPaymentIdWeb: Type.String(),
});

const AccountNumber = Type.String({ minLength: 1, maxLength: 20, description: 'Your account number' });
const IsoDate = Type.String({ minLength: 1, maxLength: 10, description: 'YYYY-MM-DD' });

export const DateRangeQuery = Type.Object({
  accountNumber: AccountNumber,
  startDate: IsoDate,
  endDate: IsoDate,
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000, description: 'Optional paging: page >= 1 (with limit; default 1). Without page and limit the whole range is answered.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'Optional paging: records per page, 1..10,000 (default 1,000 when page is given)' })),
});

export const ByCodeQuery = Type.Object({
  accountNumber: AccountNumber,
  nsu: Type.String({ minLength: 1, maxLength: 100 }),
  codAuth: Type.Optional(Type.String({ minLength: 1, maxLength: 30 })),
});

export const ByAuthCodeQuery = Type.Object({
  accountNumber: AccountNumber,
  codAuth: Type.String({ minLength: 1, maxLength: 30 }),
  operationDate: IsoDate,
  value: Type.Optional(Type.String({ minLength: 1, maxLength: 20, description: 'decimal 10,4: the sum of all installments' })),
  installmentValue: Type.Optional(Type.String({ minLength: 1, maxLength: 20, description: 'decimal 10,4' })),
  installmentNumber: Type.Optional(Type.Integer({ minimum: 1, maximum: 99 })),
});

export const AccountQuery = Type.Object({ accountNumber: AccountNumber });

/** Exactly one of `items` and `all` (checked by the handler, for a clear error). */
export const PrepaymentBody = Type.Object({
  items: Type.Optional(
    Type.Array(Type.Object({ nsu: Type.String({ minLength: 1, maxLength: 100 }), installmentNumber: Type.Integer({ minimum: 1, maximum: 99 }) }), {
      minItems: 1,
      maxItems: 500,
    }),
  ),
  all: Type.Optional(Type.Boolean()),
}, { examples: [EXAMPLES.createPrepayment] });

export const PrepaymentResult = Type.Object({
  receivedDate: Type.String({ description: 'YYYY-MM-DD: the new receipt date of every anticipated installment' }),
  count: Type.Integer(),
  totalReceivedValue: D4,
  totalDiscount: D4,
  items: Type.Array(InstallmentRecord),
});
