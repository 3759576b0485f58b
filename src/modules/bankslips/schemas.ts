import { Type, type Static } from '@sinclair/typebox';
import { STATES } from '../../domain/address.js';
import { EXAMPLES } from '../../http/examples.js';

export { STATES };

const nullableString = (options: object = {}) => Type.Union([Type.String(options), Type.Null()]);
const nullableNumber = (options: object = {}) => Type.Union([Type.Number(options), Type.Null()]);
const enumOf = <T extends string | number>(type: 'string' | 'integer', values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type, enum: [...values], description });

/**
 * A money request never drops a field quietly: an object of the issue body names every field it
 * takes, and any other is a 400 tagged with its path (src/http/validation.ts). Not
 * `additionalProperties: false`, which the validator's removeAdditional would strip silently.
 */
export const CLOSED = { additionalProperties: Type.Not(Type.Unknown()) } as const;

const DiscountBody = Type.Object({
  type: enumOf('string', ['fixed', 'percent'] as const, 'fixed: reais off; percent: a percent of the value off'),
  value: Type.Number({ exclusiveMinimum: 0, description: 'Reais (fixed) or percent (percent), at most 2 decimals; less than the value' }),
  until: Type.String({ format: 'date', description: 'YYYY-MM-DD, inclusive: from today to the due date' }),
}, CLOSED);

export const IssueBody = Type.Object({
  value: Type.Number({ exclusiveMinimum: 0, description: 'Reais, at most 2 decimals, up to 99999999.99 (the barcode holds 10 digits of cents)' }),
  dueDate: Type.String({ format: 'date', description: 'YYYY-MM-DD, today or later (business date, UTC)' }),
  payer: Type.Object({
    document: Type.String({ maxLength: 14, description: 'CPF (11) or CNPJ (14, alphanumeric allowed), no mask' }),
    name: Type.String({ minLength: 1, maxLength: 50 }),
    streetAndNumber: Type.String({ minLength: 1, maxLength: 100 }),
    zipCode: Type.String({ pattern: '^[0-9]{8}$', maxLength: 8, description: 'CEP, 8 digits' }),
    city: Type.String({ minLength: 1, maxLength: 100 }),
    state: enumOf('string', STATES, 'State code (UF)'),
    neighborhood: Type.String({ minLength: 1, maxLength: 50 }),
    phoneNumber: Type.Optional(Type.String({ maxLength: 20, pattern: '^[0-9+() -]+$' })),
  }, CLOSED),
  referenceCode: Type.Optional(Type.String({ maxLength: 100, description: 'Your own reference, echoed as ReferenceCode' })),
  pix: Type.Optional(Type.Boolean({ description: 'Also issue a Pix BR Code (pixEmv) for the same amount' })),
  overdue: Type.Optional(
    Type.Object({
      allow: Type.Boolean({ description: 'Accept payment after the due date' }),
      dateLimit: Type.Optional(Type.String({ format: 'date', description: 'Required when allow: last day a late payment is accepted (inclusive), after dueDate' })),
      penaltyPercent: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'One-off penalty on the value, at most 4 decimals; only when allow' })),
      interestPercentPerMonth: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'Simple interest, pro rata per day (/30), at most 4 decimals; only when allow' })),
    }, CLOSED),
  ),
  discount: Type.Optional(
    Type.Union([DiscountBody, Type.Array(DiscountBody, { minItems: 1, maxItems: 3 })], {
      description: 'Discounts for early payment: one, or up to three with distinct dates (the first whose date has not passed applies)',
    }),
  ),
}, { ...CLOSED, examples: [EXAMPLES.issueBankSlip] });
export type IssueBody = Static<typeof IssueBody>;

export const AccountQuery = Type.Object({ accountNumber: Type.String({ maxLength: 20, description: 'Your account number' }) });

export const DateRangeQuery = Type.Object({
  accountNumber: Type.String({ maxLength: 20 }),
  startDate: Type.String({ format: 'date', description: 'YYYY-MM-DD, inclusive' }),
  endDate: Type.String({ format: 'date', description: 'YYYY-MM-DD, inclusive; at most 90 days after startDate' }),
});

export const CreditDateQuery = Type.Object({
  accountNumber: Type.String({ maxLength: 20 }),
  startDate: Type.String({ maxLength: 40, description: 'YYYY-MM-DD or ISO 8601 datetime (counts as its calendar date), inclusive' }),
  endDate: Type.String({ maxLength: 40, description: 'YYYY-MM-DD or ISO 8601 datetime (counts as its calendar date), inclusive' }),
  statusIntegration: Type.Optional(enumOf('integer', [1, 2, 9, 99] as const, '1 processing, 2 issued, 9 rejected, 99 failed')),
});

const payerFields = {
  payerDocument: Type.String(),
  payerName: Type.String(),
  payerStreetAndNumber: Type.String(),
  payerZipCode: Type.String(),
  payerCity: Type.String(),
  payerCityState: Type.String(),
  payerNeighborhood: Type.String(),
  payerPhoneNumber: nullableString(),
};

const common = {
  id: Type.String({ format: 'uuid' }),
  value: Type.Number({ description: 'Original amount, 11,2' }),
  issueDate: Type.String({ format: 'date' }),
  dueDate: Type.String({ format: 'date' }),
  ...payerFields,
  effectivePaymentDate: nullableString({ format: 'date' }),
  effectiveCreditDate: nullableString({ format: 'date' }),
  effectivePaymentValue: nullableNumber({ description: 'Paid amount, penalty and interest included' }),
  barCode: nullableString({ description: '44 digits, once registered' }),
  digitableLine: nullableString({ description: '47 digits, once registered' }),
  pixEmv: nullableString({ description: 'Pix BR Code, when asked for and registered' }),
};

const statusFields = {
  statusBill: Type.Integer({ description: '1 processing, 2 issued, 3 paid, 9 overdue, 99 failed' }),
  statusIntegration: Type.Integer({ description: '1 processing, 2 issued, 9 rejected, 99 failed' }),
};

/** Seed "Bank slip list record (by due date and by payment date)". */
export const BankSlipListRecord = Type.Object({ ...common, ...statusFields });
export type BankSlipListRecord = Static<typeof BankSlipListRecord>;

/** Seed "Bank slip detail record", with extensions after `message`. */
export const BankSlipDetail = Type.Object({
  ...common,
  status: Type.Integer({ description: '1 processing, 2 issued (also while overdue), 3 paid, 99 failed' }),
  success: Type.Boolean(),
  message: nullableString({ description: 'Why registration failed (status 99), else null' }),
  ...statusFields,
  ourNumber: nullableString({ description: 'Extension: 15 digits (14-digit sequence + check digit), once registered' }),
  referenceCode: nullableString(),
  overdue: Type.Object({
    allow: Type.Boolean(),
    dateLimit: nullableString({ format: 'date' }),
    penaltyPercent: Type.Number(),
    interestPercentPerMonth: Type.Number(),
  }),
  overduePenaltyReceived: nullableNumber(),
  overdueInterestReceived: nullableNumber(),
  discount: Type.Array(Type.Object({
    type: Type.Union([Type.Literal('fixed'), Type.Literal('percent')]),
    value: Type.Number({ description: 'Reais (fixed) or percent (percent), as issued' }),
    until: Type.String({ format: 'date' }),
    amount: Type.Number({ description: 'Reais it takes off the value when paid until then' }),
  }), { description: 'Extension: discounts for early payment, by date (empty when none)' }),
  // Named as the seed names them in the by-credit-date record.
  CancelDate: nullableString({ format: 'date-time', description: 'When the slip was cancelled (by the merchant, or written off by the bank: that day at 00:00 UTC); it is no longer payable' }),
  CancellationReason: nullableString({ description: "The merchant's reason, or the bank's write-off reason" }),
});
export type BankSlipDetail = Static<typeof BankSlipDetail>;

/** Seed "Bank slip list record (by credit date)": PascalCase, overdue fields, no phone or statusIntegration. */
export const BankSlipCreditRecord = Type.Object({
  Id: Type.String({ format: 'uuid' }),
  Value: Type.Number(),
  IssueDate: Type.String({ format: 'date' }),
  DueDate: Type.String({ format: 'date' }),
  PayerDocument: Type.String(),
  PayerName: Type.String(),
  PayerStreetAndNumber: Type.String(),
  PayerZipCode: Type.String(),
  PayerCity: Type.String(),
  PayerCityState: Type.String(),
  PayerNeighborhood: Type.String(),
  EffectivePaymentDate: nullableString({ format: 'date' }),
  EffectiveCreditDate: nullableString({ format: 'date' }),
  EffectivePaymentValue: nullableNumber(),
  BarCode: nullableString(),
  DigitableLine: nullableString(),
  PixEmv: nullableString(),
  StatusBill: Type.Integer(),
  OurNumber: nullableString(),
  OverduePaymentAllow: Type.Boolean(),
  OverduePaymentDateLimit: nullableString({ format: 'date-time', description: 'Last day (inclusive) at 00:00 UTC' }),
  OverduePaymentPenalty: Type.Number({ description: 'Penalty percent' }),
  OverduePenaltyReceived: nullableNumber({ description: 'Penalty paid, reais' }),
  OverduePaymentInterest: Type.Number({ description: 'Interest percent per month' }),
  OverdueInterestReceived: nullableNumber({ description: 'Interest paid, reais' }),
  CancelDate: nullableString({ format: 'date-time' }),
  CancellationReason: nullableString(),
  ReferenceCode: nullableString(),
});
export type BankSlipCreditRecord = Static<typeof BankSlipCreditRecord>;

/** The information endpoint's own error shape (contract section 10). */
export const InformationError = Type.Object({ success: Type.Literal(false), message: Type.String() });

export const SlipIdParams = Type.Object({ id: Type.String({ maxLength: 36, pattern: '^[0-9a-fA-F-]{36}$', description: 'Bank slip id (GUID)' }) });

export const CancelBody = Type.Object({
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Why the slip is cancelled, shown as CancellationReason' })),
}, { ...CLOSED, examples: [{ reason: 'Order cancelled by the customer' }] });
export type CancelBody = Static<typeof CancelBody>;

export const SandboxPayBody = Type.Object({
  paidAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the payer paid; default now; not in the future' })),
  value: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'Amount paid; must equal the amount due on that day' })),
}, { examples: [EXAMPLES.sandboxPayBankSlip] });

/** CNAB 240: the remittance of one business date. */
export const RemittanceQuery = Type.Object({ date: Type.String({ format: 'date', description: 'YYYY-MM-DD: the slips issued or cancelled that day (business date, UTC)' }) });
export type RemittanceQuery = Static<typeof RemittanceQuery>;

export const ImportSummary = Type.Object(
  {
    applied: Type.Integer({ description: 'Records that changed a slip: registered, rejected by the bank, paid, written off' }),
    unchanged: Type.Integer({ description: 'Records the slips already reflect (a file imported again), and news that changes no slip (fees, protest steps)' }),
    rejected: Type.Integer({ description: 'Records that contradict a slip (a second, different payment; a rejection of a paid slip): not applied, each in errors' }),
    errors: Type.Array(Type.Object({ line: Type.Integer({ description: '1-based line of the file' }), description: Type.String() })),
  },
  { description: 'A malformed file (400) applies nothing: errors names every bad line and the counts are 0.' },
);
