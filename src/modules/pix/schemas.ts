import { Type } from '@sinclair/typebox';
import { EXAMPLES } from '../../http/examples.js';

export const PixChargeBody = Type.Object({
  amount: Type.Integer({ minimum: 1, maximum: 99_999_999, description: 'Cents (conciliation values have 6 integer digits)' }),
  description: Type.Optional(Type.String({ minLength: 1, maxLength: 140 })),
  expiresIn: Type.Optional(Type.Integer({ minimum: 60, maximum: 2_592_000, description: 'Seconds, default 3600; not with dueDate' })),
  referenceTransaction: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  dueDate: Type.Optional(Type.String({ description: "YYYY-MM-DD: a charge with a due date (API Pix cobv), payable with its day's amount up to validAfterDueDays after it" })),
  validAfterDueDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 365, description: 'Calendar days it stays payable after dueDate (default 30); only with dueDate' })),
  payer: Type.Optional(Type.Object({
    documentNumber: Type.String({ minLength: 11, maxLength: 14, description: 'CPF or CNPJ, digits only (a CNPJ may be alphanumeric)' }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
  }, { additionalProperties: false, description: 'Required with dueDate' })),
  fine: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'Percent of the amount charged once when paid after the due date (at most 2 decimals); only with dueDate' })),
  interest: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'Percent a month, simple, pro rata per calendar day after the due date (at most 2 decimals); only with dueDate' })),
  discount: Type.Optional(Type.Object({
    amount: Type.Integer({ minimum: 1, maximum: 99_999_999, description: 'Cents off when paid on or before until' }),
    until: Type.String({ description: 'YYYY-MM-DD, not after dueDate' }),
  }, { additionalProperties: false, description: 'A fixed discount until a date; only with dueDate' })),
}, { additionalProperties: false, examples: [EXAMPLES.createPixCharge] });

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const PixCharge = Type.Object({
  id: Type.String(),
  txid: Type.String(),
  pixEmv: Type.String({ description: 'BR Code "copia e cola" (dynamic, CRC16 checked)' }),
  status: Type.Union([Type.Literal('Pending'), Type.Literal('Paid'), Type.Literal('Expired')]),
  amount: Type.Integer(),
  description: NullableString,
  referenceTransaction: NullableString,
  expiresAt: Type.String({ format: 'date-time' }),
  paidAt: NullableString,
  refundedAmount: Type.Integer({ description: 'Cents returned to the payer so far (refunds Returned)' }),
  paidAmount: Type.Union([Type.Integer(), Type.Null()], { description: "Cents the payer paid: the amount, or for a charge with a due date its day's amount" }),
  dueDate: Type.Union([Type.String(), Type.Null()], { description: 'Null for an immediate charge' }),
  validAfterDueDays: Type.Union([Type.Integer(), Type.Null()]),
  payer: Type.Union([Type.Object({ documentNumber: Type.String(), name: Type.String() }), Type.Null()]),
  fine: Type.Union([Type.Number(), Type.Null()], { description: 'Percent' }),
  interest: Type.Union([Type.Number(), Type.Null()], { description: 'Percent a month' }),
  discount: Type.Union([Type.Object({ amount: Type.Integer(), until: Type.String() }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

export const PixDuePayment = Type.Object({
  txid: Type.String(),
  endToEndId: Type.String(),
  amount: Type.Integer({ description: "Cents paid: the amount due on the sandbox's day" }),
  paidAt: Type.String({ format: 'date-time' }),
  chargeId: Type.Union([Type.String(), Type.Null()], { description: 'The Pix charge paid' }),
  bankSlipId: Type.Union([Type.String(), Type.Null()], { description: 'The bank slip paid through its Pix code' }),
});

export const PixChargeParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 36 }) });

/** A txid as the location path carries it (the API Pix cob txid: 26 to 35 alphanumerics). */
export const PixLocationParams = Type.Object({ txid: Type.String({ pattern: '^[A-Za-z0-9]{26,35}$' }) });

/**
 * What a payer's bank adds to a charge with a due date's location (API Pix `GET
 * /cobv/{pixUrlAccessToken}`). Plain strings here: the location checks them itself, so a
 * malformed one is answered in the API Pix's shape.
 */
export const PixLocationQuery = Type.Object({
  DPP: Type.Optional(Type.String({ description: 'Charge with a due date: the date the payer intends to pay (YYYY-MM-DD, Brasília), from today to its last payable day; the payload is priced for it. Default today.' })),
  codMun: Type.Optional(Type.String({ description: "Charge with a due date: the payer's municipality, IBGE's 7-digit code (the state part is checked)." })),
});

/** An error of a location, as the API Pix writes it (RFC 7807 `Problema`, `application/problem+json`). */
export const PixLocationProblem = Type.Object({
  type: Type.String({ description: 'https://pix.bcb.gov.br/api/v2/error/CobPayloadNaoEncontrado (404) or .../CobPayloadOperacaoInvalida (400)' }),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.Optional(Type.String()),
  violacoes: Type.Optional(Type.Array(Type.Object({ razao: Type.String(), propriedade: Type.String(), valor: Type.Optional(Type.String()) }))),
});

export const PixJwks = Type.Object({
  keys: Type.Array(Type.Object({ kty: Type.String(), kid: Type.String(), alg: Type.String(), use: Type.String(), n: Type.String(), e: Type.String() })),
});

/** The PSP's webhook body (`{pix: [...]}`, the API Pix's names: src/pix-provider/bcb/protocol.ts). */
export { PixWebhookBody } from '../../pix-provider/bcb/protocol.js';

export const PixWebhookAnswer = Type.Object({
  applied: Type.Integer({ description: 'Payments that paid a charge now' }),
  duplicates: Type.Integer({ description: 'Payments already received (by endToEndId)' }),
  unmatched: Type.Integer({ description: 'New payments that paid no charge (unknown txid, other amount, charge already paid)' }),
  returns: Type.Integer({ description: "Refunds (devoluções) whose final status this call recorded, the PSP's MED returns included" }),
});

export const PixRefundBody = Type.Object({
  amount: Type.Optional(Type.Integer({ minimum: 0, maximum: 99_999_999, description: 'Cents to return; by default what is left of the charge (0 is refused with tag amount)' })),
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 140, description: "A message to the payer (the API Pix's descricao)" })),
});

export const PixRefund = Type.Object({
  refundId: Type.String({ description: "Also the API Pix's devolução id at the PSP" }),
  chargeId: Type.String(),
  amount: Type.Integer({ description: 'Cents' }),
  status: Type.Union(['InProcess', 'Returned', 'NotDone'].map((s) => Type.Literal(s)), {
    description: "The API Pix's EM_PROCESSAMENTO, DEVOLVIDO, NAO_REALIZADO. InProcess ends with pix.refunded or pix.refund_failed",
  }),
  nature: Type.Union(['ORIGINAL', 'MED_OPERACIONAL', 'MED_FRAUDE'].map((s) => Type.Literal(s)), { description: "The API Pix's natureza: ORIGINAL for a merchant's refund" }),
  reason: NullableString,
  statusReason: Type.Union([Type.String(), Type.Null()], { description: 'Why a NotDone return was not made (nothing was returned)' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const PixRefundList = Type.Object({ items: Type.Array(PixRefund) });

export const PixRefundParams = Type.Object({ refundId: Type.String({ minLength: 1, maxLength: 35 }) });

/** A locrec's id in the sandbox PSP's location path. */
export const PixRecurrenceLocationParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9]{1,77}$' }) });
export const PixRecurrenceParams = Type.Object({ recurrenceId: Type.String({ pattern: '^R[RN][0-9A-Z]{8}[0-9]{8}[a-zA-Z0-9]{11}$', description: 'The API Pix idRec (pixAuthorization.recurrenceId)' }) });
export const PixRecurrenceOutcomeBody = Type.Object(
  { result: Type.Optional(Type.Union([Type.Literal('paid'), Type.Literal('insufficient_funds')], { description: 'What the payer account answers the next charges; default paid' })) },
  { additionalProperties: false },
);
/** The sandbox's view of a recurrence (Pix Automático). */
export const PixRecurrence = Type.Object({
  recurrenceId: Type.String(),
  subscriptionId: Type.String(),
  status: Type.String({ description: 'CRIADA, APROVADA, REJEITADA, EXPIRADA or CANCELADA' }),
  reason: Type.Union([Type.String(), Type.Null()]),
  canceledBy: Type.Union([Type.String(), Type.Null()]),
  nextOutcome: Type.String({ description: 'paid or insufficient_funds: what the next charges meet' }),
});
