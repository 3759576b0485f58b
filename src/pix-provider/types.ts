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

/** A payment the PSP reports (webhook, `GET /pix` or `GET /pix/{e2eid}`): one per endToEndId. */
export interface PixReceipt {
  endToEndId: string;
  /** Absent for a Pix sent to the key without a charge. */
  txid: string | null;
  amountCents: bigint;
  /** When the payer's Pix was settled (ISO, UTC). */
  paidAt: string;
  /** The Pix's devoluções as the PSP reports them (ours, and the MED returns it made itself). */
  returns?: ProviderReturn[];
}

export type RefundOutcome = { status: 'Processing' | 'Refunded' | 'Failed'; reason?: string };

/** The API Pix's natureza of a devolução the PSP reports (ORIGINAL when the PSP names none). */
export type ReturnNature = 'ORIGINAL' | 'RETIRADA' | 'MED_OPERACIONAL' | 'MED_FRAUDE' | 'MED_PIX_AUTOMATICO';

/**
 * A devolução of a received Pix as the PSP reports it: one the gateway asked for (its id is
 * ours), or a MED return the PSP made itself from the amount it blocked (natureza MED_*).
 */
export interface ProviderReturn {
  /** Its devolução id: ours for a refund we asked for, the PSP's for a return it made. */
  id: string;
  /** The SPI's ReturnIdentification (pacs.004), unique across the SPI. */
  rtrId: string | null;
  amountCents: bigint;
  /** Null when the PSP sent a natureza this connector does not know. */
  nature: ReturnNature | null;
  status: RefundOutcome['status'];
  reason?: string;
}

/**
 * A devolução as sent: `refundId` is its API Pix id, so a repeated PUT makes nothing twice. A
 * receiver asks only for ORIGINAL or RETIRADA (DevolucaoSolicitada); a MED return is the PSP's
 * to make, never requested.
 */
export interface ProviderRefund {
  /** The Pix returned (null only in the sandbox, whose payments have none). */
  endToEndId: string | null;
  refundId: string;
  amountCents: bigint;
  /** The API Pix's natureza of a requested devolução. */
  nature: 'ORIGINAL' | 'RETIRADA';
  description?: string;
}

/**
 * A Pix Automático recurrence with its journey-3 charge (API Pix `POST /locrec`, `PUT /cob/{txid}`,
 * `POST /rec` with `loc` and `ativacao.dadosJornada.txid`): the payer scans one code, pays the
 * first charge and authorizes the recurrence in their bank app.
 */
export interface NewProviderRecurrence {
  /** The idRec the gateway proposes (the sandbox keeps it; a PSP that forms its own answers it). */
  recurrenceId: string;
  /** Our id of the locrec (the sandbox's location path); a PSP answers its own. */
  locationId: string;
  /** The journey-3 immediate charge. */
  txid: string;
  amountCents: bigint;
  /** Seconds the code (and its charge) stay payable. */
  expiresInSeconds: number;
  periodicity: string;
  retryPolicy: string;
  /** YYYY-MM-DD: the first payment's date, and the last (null: no end). */
  firstDate: string;
  finalDate: string | null;
  payer: { document: string; name: string };
  /** vinculo.contrato and vinculo.objeto. */
  contract: string;
  object: string;
}

/** A cycle's charge (`PUT /cobr/{txid}`), due on `dueDate`, settled by the payer's PSP that day. */
export interface NewProviderRecurringCharge {
  txid: string;
  recurrenceId: string;
  amountCents: bigint;
  dueDate: string;
  payer: { document: string; name: string };
  description?: string;
}

/** What the PSP tells of a recurrence and a cycle's charge (`GET /rec`, `GET /cobr`, their webhooks). */
export interface ProviderRecurrenceState {
  status: 'CRIADA' | 'APROVADA' | 'REJEITADA' | 'EXPIRADA' | 'CANCELADA';
  /** Who cancelled it, when CANCELADA. */
  canceledBy?: 'payer' | 'merchant';
  reason?: string;
}
export interface ProviderRecurringChargeState {
  status: 'CRIADA' | 'ATIVA' | 'CONCLUIDA' | 'EXPIRADA' | 'REJEITADA' | 'CANCELADA';
  /** The tentatives, latest last (`code`/`reason`: why one was refused). */
  attempts: { date: string; status: string; endToEndId?: string; code?: string; reason?: string }[];
  /** The Pix that paid it, when the PSP tells it. */
  paid?: { endToEndId: string; amountCents: bigint; paidAt: string };
}

/**
 * One page of a list the PSP keeps (`GET /rec`, `GET /cobr`), read by the items' creation
 * instant: `pages` is how many the window holds (at least 1; the connector ends it at a page
 * that came empty).
 */
export interface ProviderPage<T> {
  items: T[];
  pages: number;
}

/** A window of creation instants, both ends included (the API Pix's `inicio` and `fim`). */
export interface ProviderWindow {
  from: Date;
  to: Date;
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
  /** `GET /pix/{e2eid}`: one received Pix with its devoluções (null: unknown to the PSP). */
  readPix(endToEndId: string): Promise<PixReceipt | null>;
  /** `PUT /pix/{e2eid}/devolucao/{id}` (idempotent by id). */
  refund(refund: ProviderRefund): Promise<RefundOutcome>;
  /** `GET /pix/{e2eid}/devolucao/{id}`: null when the PSP has no such devolução. */
  lookupRefund(refund: ProviderRefund): Promise<RefundOutcome | null>;
  /** Pix Automático: the recurrence, its locrec and its journey-3 charge; its idRec and the two locations its composite code carries (the locrec's, the charge's). */
  createRecurrence(recurrence: NewProviderRecurrence): Promise<{ recurrenceId: string; location: string; chargeLocation: string }>;
  /** `PUT /cobr/{txid}` (idempotent by txid): a cycle's charge, sent in its window before the due date. */
  sendRecurringCharge(charge: NewProviderRecurringCharge): Promise<void>;
  /** `POST /cobr/{txid}/retentativa/{data}`: settle a failed cycle again on `date` (YYYY-MM-DD). */
  requestRetry(txid: string, date: string): Promise<void>;
  /** `PATCH /cobr/{txid}` status CANCELADA: one cycle is not charged (refused by the PSP from its first settlement date). */
  cancelRecurringCharge(txid: string): Promise<void>;
  /** `PATCH /rec/{idRec}` status CANCELADA: the merchant ends the recurrence. */
  cancelRecurrence(recurrenceId: string): Promise<void>;
  /** `GET /rec?inicio=&fim=` page `page` (from 0): the recurrences created in the window. */
  listRecurrences(window: ProviderWindow, page: number): Promise<ProviderPage<ProviderRecurrenceState & { recurrenceId: string }>>;
  /** `GET /cobr?inicio=&fim=` page `page` (from 0): the cycle charges created in the window. */
  listRecurringCharges(window: ProviderWindow, page: number): Promise<ProviderPage<ProviderRecurringChargeState & { txid: string }>>;
  close(): void;
}
