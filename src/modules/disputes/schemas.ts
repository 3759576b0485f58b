import { Type, type Static } from '@sinclair/typebox';
import { ListQuery, listEnvelope } from '../../http/listing.js';
import { DISPUTE_STATUSES, type DisputeStatus } from '../../domain/lifecycles.js';

const DATE = '^[0-9]{4}-[0-9]{2}-[0-9]{2}$';
export { DISPUTE_STATUSES, type DisputeStatus };

export const RegisterDisputeBody = Type.Object({
  paymentId: Type.Optional(Type.String({ minLength: 1, maxLength: 36, description: 'A card payment (a chargeback)' })),
  pixChargeId: Type.Optional(Type.String({ minLength: 1, maxLength: 36, description: 'A paid Pix charge (a MED claim, type pix_med)' })),
  reasonCode: Type.String({ minLength: 1, maxLength: 10, description: "The card network's reason code, as the acquirer reports it (Visa 104 or 10.4, Mastercard 4837, Elo 83...); for a MED claim FR01 (fraud) or BE08 (operational failure)" }),
  amount: Type.Optional(Type.Integer({ minimum: 1, maximum: 9_999_999_999, description: 'Cents disputed; by default what is left of the payment or Pix' })),
  respondBy: Type.Optional(Type.String({ pattern: DATE, description: 'Last day evidence is taken (YYYY-MM-DD); by default 10 days from today' })),
});
export type RegisterDisputeBody = Static<typeof RegisterDisputeBody>;

export const SandboxDisputeBody = Type.Object({ reasonCode: RegisterDisputeBody.properties.reasonCode });
export const SandboxInfractionBody = Type.Object({
  reasonCode: Type.Optional(Type.Union([Type.Literal('FR01'), Type.Literal('BE08')], { default: 'FR01', description: 'FR01 fraud (MED_FRAUDE), BE08 operational failure (MED_OPERACIONAL)' })),
  amount: RegisterDisputeBody.properties.amount,
});
export type SandboxDisputeBody = Static<typeof SandboxDisputeBody>;

export const ResolveDisputeBody = Type.Object({ outcome: Type.Union([Type.Literal('won'), Type.Literal('lost')]) });
export type ResolveDisputeBody = Static<typeof ResolveDisputeBody>;

export const EvidenceBody = Type.Object({
  text: Type.Optional(Type.String({ maxLength: 20_000, description: "The merchant's account of the sale" })),
  files: Type.Optional(
    Type.Array(
      Type.Object({
        fileName: Type.String({ minLength: 1, maxLength: 255 }),
        contentType: Type.String({ minLength: 1, maxLength: 100, description: 'application/pdf, image/png or image/jpeg, and the bytes must agree' }),
        contentBase64: Type.String({ minLength: 1, description: 'The file, base64' }),
      }),
      { maxItems: 10 },
    ),
  ),
});
export type EvidenceBody = Static<typeof EvidenceBody>;

const EvidenceView = Type.Object({
  evidenceId: Type.String(),
  text: Type.Union([Type.String(), Type.Null()]),
  files: Type.Array(Type.Object({ fileId: Type.String(), fileName: Type.String(), contentType: Type.String(), size: Type.Integer(), sha256: Type.String() })),
  createdAt: Type.String({ format: 'date-time' }),
});

const disputeFields = {
  disputeId: Type.String(),
  type: Type.Union([Type.Literal('chargeback'), Type.Literal('pix_med')], { description: 'chargeback (a card payment) or pix_med (a MED claim against a received Pix)' }),
  paymentId: Type.Union([Type.String(), Type.Null()], { description: 'The card payment (chargeback)' }),
  pixChargeId: Type.Union([Type.String(), Type.Null()], { description: 'The Pix charge (pix_med)' }),
  status: Type.Union(DISPUTE_STATUSES.map((s) => Type.Literal(s))),
  reasonCode: Type.String({ description: 'As registered (Visa 104 or 10.4)' }),
  brandReasonCode: Type.String({ description: "The reason code in the card brand's own notation (Visa 10.4, Mastercard 4837)" }),
  reasonMessage: Type.String(),
  liabilityShift: Type.Boolean({ description: "A fraud chargeback of a sale authenticated with 3-D Secure whose liability shifted to the issuer: lost, it is not debited from the merchant's receivables" }),
  amount: Type.Integer({ description: 'Cents' }),
  respondBy: Type.String({ description: 'YYYY-MM-DD' }),
  createdAt: Type.String({ format: 'date-time' }),
  closedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it closed. A MED claim Lost or Accepted stays open (null) until the PSP has made its MED return' }),
  refundId: Type.Union([Type.String(), Type.Null()], { description: "pix_med: the MED return the PSP made, listed among the Pix charge's refunds (its rtrId); null until it arrives" }),
};

export const DisputeSummary = Type.Object(disputeFields);
export type DisputeSummary = Static<typeof DisputeSummary>;
export const DisputeResult = Type.Object({ ...disputeFields, evidence: Type.Array(EvidenceView) });
export type DisputeResult = Static<typeof DisputeResult>;
export const DisputeList = listEnvelope(DisputeSummary);

export const DisputeQuery = Type.Composite([
  ListQuery,
  Type.Object({
    status: Type.Optional(Type.Union(DISPUTE_STATUSES.map((s) => Type.Literal(s)))),
    startDate: Type.Optional(Type.String({ pattern: DATE, description: 'Created on or after (YYYY-MM-DD)' })),
    endDate: Type.Optional(Type.String({ pattern: DATE, description: 'Created on or before (YYYY-MM-DD)' })),
  }),
]);
export type DisputeQuery = Static<typeof DisputeQuery>;

export const DisputeIdParams = Type.Object({ disputeId: Type.String({ minLength: 1, maxLength: 36 }) });
export const PaymentIdParams = Type.Object({ paymentId: Type.String({ minLength: 1, maxLength: 36 }) });
export const PixChargeIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 36 }) });
