/**
 * What the Pix module asks of a PSP, in the gateway's own terms (amounts in cents, ISO
 * times): the connector behind it maps to and from the party's field names, so nothing
 * outside src/pix-provider knows them.
 */
export interface NewProviderCharge {
  txid: string;
  amountCents: bigint;
  expiresInSeconds: number;
  description?: string;
}

export interface NewProviderDueCharge {
  txid: string;
  amountCents: bigint;
  /** YYYY-MM-DD: payable up to that day, inclusive. */
  dueDate: string;
  /** Days the code stays payable after the due date (0: not after it). */
  daysAfterDue: number;
  payer: { document: string; name: string };
  /** Percents scaled by 10^4 (2% = 20000n): the penalty once after the due date, simple interest a month pro rata per calendar day. */
  penaltyPercent: bigint;
  interestPercentPerMonth: bigint;
  /** Up to three fixed amounts off, each when paid on or before its `until`. */
  discounts: { amountCents: bigint; until: string }[];
  description?: string;
}

/** A payment the PSP reports (webhook or `GET /pix`): one per endToEndId. */
export interface PixReceipt {
  endToEndId: string;
  /** Absent for a Pix sent to the key without a charge. */
  txid: string | null;
  amountCents: bigint;
  /** When the payer's Pix was settled (ISO, UTC). */
  paidAt: string;
}

export type RefundOutcome = { status: 'Processing' | 'Refunded' | 'Failed'; reason?: string };

/** A devolução as sent: `refundId` is its API Pix id, so a repeated PUT makes nothing twice. */
export interface ProviderRefund {
  /** The Pix returned (null only in the sandbox, whose payments have none). */
  endToEndId: string | null;
  refundId: string;
  amountCents: bigint;
  /** The API Pix's natureza. */
  nature: 'ORIGINAL' | 'MED_OPERACIONAL' | 'MED_FRAUDE';
  description?: string;
}

export class PixProviderUnavailable extends Error {}
/** The PSP refused the request (4xx): the reason is its own `detail`/`title`, never a secret. */
export class PixProviderRefused extends Error {}

export interface PixProvider {
  readonly kind: 'sandbox' | 'bcb';
  /** `PUT /cob/{txid}` (idempotent by txid): the location to put in the BR Code. */
  createCharge(charge: NewProviderCharge): Promise<{ location: string }>;
  /** `PUT /cobv/{txid}`: a charge with a due date (the Pix code printed on a bank slip). */
  createDueCharge(charge: NewProviderDueCharge): Promise<{ location: string }>;
  /** `PATCH /cobv/{txid}` to REMOVIDA_PELO_USUARIO_RECEBEDOR: the code can no longer be paid (its slip was cancelled). */
  removeDueCharge(txid: string): Promise<void>;
  /** `GET /pix?inicio=&fim=`, every page. */
  listReceived(from: Date, to: Date): Promise<PixReceipt[]>;
  /** `PUT /pix/{e2eid}/devolucao/{id}` (idempotent by id). */
  refund(refund: ProviderRefund): Promise<RefundOutcome>;
  /** `GET /pix/{e2eid}/devolucao/{id}`: null when the PSP has no such devolução. */
  lookupRefund(refund: ProviderRefund): Promise<RefundOutcome | null>;
  close(): void;
}
