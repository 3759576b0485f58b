/**
 * Table types for Kysely. Conventions shared by both engines:
 * - datetimes are ISO 8601 UTC strings (`2026-01-31T12:00:00.000Z`), which sort as text;
 * - money is integer minor units (`bigint`), exact decimals are scaled integers;
 * - booleans are 0/1 integers (SQLite has no boolean);
 * - structured values are JSON text.
 */
import type { Generated } from 'kysely';
import type { BankSlipStatus, BillingStatus, DisputeStatus, PaymentStatus, PixChargeStatus, RefundStatus, SubscriptionStatus } from '../domain/lifecycles.js';

export interface SettingsTable {
  key: string;
  value: string;
}

export interface MerchantsTable {
  account_number: Generated<number>;
  merchant_id: string;
  name: string;
  document_number: string;
  legal_name: string | null;
  email: string | null;
  created_at: string;
  /** The merchant's address, all four or none (API Pix logradouro, cidade, uf, cep). */
  address_street: string | null;
  address_city: string | null;
  address_state: string | null;
  address_zip_code: string | null;
  /** 1: a subscription's card is checked (zero auth) before the subscription is created. */
  verify_cards_on_subscribe: Generated<number>;
}

export interface CredentialsTable {
  user_name: string;
  merchant_id: string;
  password_hash: string;
  /** Space-separated scopes: payments, recurrence, integration. */
  scopes: string;
  /** JSON array of IPs or CIDRs; empty means any address. */
  allowed_ips: string;
  created_at: string;
  revoked_at: string | null;
}

export interface LoginAttemptsTable {
  user_name: string;
  failures: number;
  /** Wall-clock time of the first failure of the current window. */
  window_started_at: string;
  locked_until: string | null;
}

/** A dashboard login: only the SHA-256 of the cookie's id is kept. */
export interface DashboardSessionsTable {
  id_hash: string;
  /** 'merchant' | 'operator'. */
  role: string;
  merchant_id: string | null;
  /** The merchant's credential; re-checked on every request. */
  user_name: string | null;
  csrf_token: string;
  created_at: string;
  /** Absolute end of the session (wall clock). */
  expires_at: string;
  /** Last request (wall clock): an idle session ends before expires_at. */
  last_seen_at: string;
}

export interface IdempotencyKeysTable {
  /** `merchant:<merchantId>` or `admin`: keys are per merchant. */
  owner: string;
  idem_key: string;
  request_hash: string;
  /** Null while the first request is still being processed. */
  status_code: number | null;
  response_body: string | null;
  content_type: string | null;
  created_at: string;
}

export interface JobsTable {
  id: Generated<number>;
  kind: string;
  payload: string;
  /** Business time at which the job is due. */
  run_at: string;
  status: 'pending' | 'running' | 'done' | 'failed';
  attempts: number;
  max_attempts: number;
  dedupe_key: string | null;
  locked_by: string | null;
  /** Wall-clock lease expiry: a job whose worker died is taken again after it. */
  locked_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface CardKeysTable {
  key_id: string;
  public_pem: string;
  private_sealed: string;
  created_at: string;
  retired_at: string | null;
}

interface StoredCard {
  pan_sealed: string;
  brand: string;
  bin: string;
  last4: string;
  pan_length: number;
  exp_month: string;
  exp_year: string;
  /** HMAC of the PAN under the card-fingerprint lookup key (stable across DATA_KEY rotations): equal cards, equal fingerprints. */
  fingerprint: string;
}

export interface CardTokensTable extends StoredCard {
  number_token: string;
  merchant_id: string;
  expires_at: string;
  consumed_at: string | null;
  created_at: string;
}

export interface VaultCardsTable extends StoredCard {
  vault_id: string;
  merchant_id: string;
  cardholder_name: string;
  sandbox_return_code: string | null;
  created_at: string;
  deleted_at: string | null;
  /** The network's reference of the card's first charge or check, for merchant-initiated charges. */
  network_reference: string | null;
}

/** A subscription's card update link: the customer enters a new card on its page, once, before it expires. */
export interface CardUpdateLinksTable {
  /** SHA-256 of the link's token: the token itself is only in the URL. */
  token_hash: string;
  subscription_id: string;
  merchant_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A stored card's history: replaced in place (same vault id), by the account updater or its holder. */
export interface VaultCardUpdatesTable {
  update_id: string;
  vault_id: string;
  merchant_id: string;
  /** `account_updater` or `card_update_link`. */
  source: string;
  old_last4: string;
  new_last4: string;
  /** MM/YYYY. */
  old_expiry: string;
  new_expiry: string;
  created_at: string;
}

export interface PaymentsTable {
  payment_id: string;
  merchant_id: string;
  account_number: number;
  status: PaymentStatus;
  amount: number;
  installments: number;
  product_type: string;
  transaction_type: string;
  brand: string;
  masked_card_number: string;
  card_fingerprint: string;
  card_source: string;
  vault_id: string | null;
  cardholder_name: string;
  reference_transaction: string | null;
  url_callback: string | null;
  code_anti_fraud: string;
  customer: string | null;
  customer_document: string | null;
  customer_email: string | null;
  customer_ip: string | null;
  antifraud_decision: string;
  antifraud_score: number;
  antifraud_reasons: string;
  return_code: string | null;
  return_message: string | null;
  /** A declined payment's ABECS category, from the connector's table (retryable or final); null otherwise or when not recorded. */
  decline_category?: string | null;
  /** The network's reference of an approved charge (Cielo's IssuerTransactionId), for a stored card's later merchant-initiated ones. */
  network_reference?: string | null;
  authorization_code: string | null;
  nsu: string | null;
  acquirer_reference: string | null;
  splits: string;
  billing_id: string | null;
  created_at: string;
  updated_at: string;
  /** Wall clock: when the authorization was last sent to the acquirer (a lookup's "not found" waits out the acquirer's settle window from here). */
  acquirer_sent_at: string | null;
  /** Cents refunded so far (Succeeded refunds); the payment is Canceled when it reaches amount. */
  refunded_amount: Generated<number>;
  /** The dispute open on this payment, if any: no refund or cancel meanwhile. */
  open_dispute_id: Generated<string | null>;
  /** Cents lost to chargebacks (disputes lost or accepted): no longer refundable. */
  charged_back_amount: Generated<number>;
  /** Business time: when the recovery sweep next asks the acquirer about this payment while it is Pending (null: a billing's payment, which its billing recovers). */
  recover_at: string | null;
  /** 3-D Secure of the payment (JSON, src/modules/payments/three-ds-state.ts); null without 3DS. */
  three_ds: string | null;
  /** The 3DS server's transaction of a challenged payment: its result is found by it. */
  threeds_transaction_id: string | null;
}

/** A chargeback of a card payment (disputes module). */
export interface DisputesTable {
  dispute_id: string;
  /** chargeback (a card payment) or pix_med (a MED claim against a received Pix). */
  type: Generated<'chargeback' | 'pix_med'>;
  /** The disputed transaction: the card payment, or for pix_med the Pix charge. */
  payment_id: string;
  merchant_id: string;
  account_number: number;
  brand: string;
  reason_code: string;
  amount: number;
  respond_by: string;
  status: DisputeStatus;
  source: string;
  created_at: string;
  updated_at: string;
  /** When it closed; a MED claim lost or accepted closes when the PSP's return is reflected (null until then). */
  closed_at: string | null;
  /** pix_med: the MED return the PSP made (a Pix refund's id), once reflected. */
  refund_id: Generated<string | null>;
  /** 1: a fraud chargeback of a sale whose 3-D Secure authentication shifted the liability to the issuer. */
  liability_shift: Generated<number>;
}

export interface DisputeEvidenceTable {
  evidence_id: string;
  dispute_id: string;
  merchant_id: string;
  text: string | null;
  created_at: string;
}

export interface DisputeFilesTable {
  file_id: string;
  evidence_id: string;
  dispute_id: string;
  merchant_id: string;
  position: number;
  file_name: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  content_sealed: string;
}

/** A refund of a card payment, recorded Pending before it is sent under its own id (payments module). */
export interface PaymentRefundsTable {
  refund_id: string;
  payment_id: string;
  merchant_id: string;
  account_number: number;
  amount: number;
  /** The payment's refunded_amount when this refund was made: how the acquirer's refunded total tells it apart. */
  refunded_before: number;
  /** Pending (sent, answer not known yet), Succeeded or Failed. */
  status: RefundStatus;
  return_message: string | null;
  /** Wall clock: when it was sent (a lookup's "no record of it" waits out the acquirer's settle window from here). */
  acquirer_sent_at: string;
  created_at: string;
  updated_at: string;
}

export interface PaymentEventsTable {
  id: Generated<number>;
  payment_id: string;
  merchant_id: string;
  account_number: number;
  old_status: string;
  new_status: string;
  occurred_at: string;
  /** 0 while the payments relay has still to make the event's notifications and receivables. */
  relayed: Generated<number>;
}

export interface AntifraudSettingsTable {
  merchant_id: string;
  settings: string;
  updated_at: string;
}

export interface AntifraudBlocklistTable {
  id: Generated<number>;
  kind: 'card' | 'document' | 'email' | 'ip';
  value: string;
  reason: string | null;
  created_at: string;
}

export interface PlansTable {
  plan_id: string;
  merchant_id: string;
  name: string;
  description: string;
  /** Scaled by 10^6. */
  amount: number;
  plan_type: string;
  trial_days: number;
  payment_method: string;
  interval_days: number;
  /** Null: no end (fixed types). */
  installments: number | null;
  attempts: number;
  status: string;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface SubscriptionsTable {
  subscription_id: string;
  merchant_id: string;
  account_number: number;
  plan_id: string;
  vault_id: string;
  order_number: string;
  status: SubscriptionStatus;
  /** Why it was Blocked (the charge's return message and code); null otherwise. */
  blocked_reason: string | null;
  blocked_return_code: string | null;
  /** Pix subscriptions: why and by whom it was canceled (payer, merchant, system). */
  canceled_reason: Generated<string | null>;
  canceled_by: Generated<string | null>;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** A Pix Automático recurrence at the PSP (API Pix `rec`), one per Pix subscription. */
export interface PixRecurrencesTable {
  recurrence_id: string;
  merchant_id: string;
  account_number: number;
  subscription_id: string;
  location_id: string;
  location: string;
  first_charge_id: string;
  first_txid: string;
  pix_emv: string;
  status: string;
  periodicity: string;
  retry_policy: string;
  /** Cents a cycle. */
  amount: number;
  first_due_date: string;
  final_date: string | null;
  payer_document: string;
  payer_name: string;
  contract: string;
  expires_at: string;
  next_outcome: string;
  reason: string | null;
  canceled_by: string | null;
  created_at: string;
  updated_at: string;
}

/** A cycle's charge (API Pix `cobr`). */
export interface PixRecurringChargesTable {
  txid: string;
  recurrence_id: string;
  merchant_id: string;
  billing_id: string;
  charge_id: string;
  amount: number;
  due_date: string;
  due_at: string;
  status: string;
  retries: number;
  attempts: string;
  created_at: string;
  updated_at: string;
}

/** Where the reconciliation of one PSP list (pix, rec, cobr) has read to. */
export interface PixReconcileCursorsTable {
  list: string;
  /** The end of the last window read through its last page (ISO). */
  read_until: string;
  updated_at: string;
}

export interface BillingsTable {
  billing_id: string;
  merchant_id: string;
  subscription_id: string;
  installment: number;
  status: BillingStatus;
  /** Scaled by 10^6. */
  amount: number;
  expire_at: string;
  attempts_made: number;
  next_attempt_at: string | null;
  charging_payment_id: string | null;
  /** JSON array of attempts. */
  attempts_history: string;
  created_by: string | null;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
}

export interface MerchantPricingTable {
  merchant_id: string;
  pricing: string;
  updated_at: string;
}

/** One row per installment (conciliation installment record); 10,4 values in ten-thousandths. */
export interface ReceivablesTable {
  id: Generated<number>;
  merchant_id: string;
  account_number: number;
  source_type: 'card' | 'pix';
  source_id: string;
  transaction_at: string;
  terminal: string;
  card_number: string | null;
  card_type: string;
  card_name: string;
  cod_auth: string;
  nsu: string;
  installment_number: number;
  installments_count: number;
  installment_value: number;
  transaction_total_value: number;
  installment_status: 'A' | 'B' | 'C';
  mdr_value: number;
  mdr_tax: number;
  trn_fee_installment: number;
  trn_fee_transaction: number;
  af_fee_installment: number;
  af_fee_transaction: number;
  prepayment_value: number;
  prepayment_tax: number;
  received_value: number;
  expected_date: string;
  effective_date: string | null;
  receipt_date: string;
  /** R regular, A one-off prepayment, E automatic prepayment, D a refund's debit against the next receivables (installment 0). */
  received_type: 'R' | 'A' | 'E' | 'D';
  received_status: 'A' | 'P';
  reference: string | null;
  splits: string | null;
}

export interface PixChargesTable {
  id: string;
  merchant_id: string;
  account_number: number;
  txid: string;
  amount: number;
  description: string | null;
  reference_transaction: string | null;
  status: PixChargeStatus;
  pix_emv: string;
  nsu: string;
  cod_auth: string;
  expires_at: string;
  paid_at: string | null;
  created_at: string;
  /** Cents returned to the payer so far (devoluções made). */
  refunded_amount: Generated<number>;
  /** The MED claim open on this charge, if any, and the cents it holds (not refundable meanwhile). */
  med_dispute_id: Generated<string | null>;
  med_blocked_amount: Generated<number>;
  /** A charge with a due date (API Pix cobv): null for an immediate one. */
  due_date: Generated<string | null>;
  days_after_due: Generated<number | null>;
  payer_document: Generated<string | null>;
  payer_name: Generated<string | null>;
  /** Terms of a charge with a due date: percents scaled by 10^4; a fixed discount until a date. */
  penalty_percent: Generated<number>;
  interest_percent: Generated<number>;
  discount_amount: Generated<number>;
  discount_until: Generated<string | null>;
  /** What the payer paid (a charge with a due date: its day's amount). */
  paid_amount: Generated<number | null>;
}

export interface PixRefundsTable {
  /** Ours, and the API Pix's devolução id (the PSP's key: a repeated PUT makes nothing twice). */
  refund_id: string;
  charge_id: string;
  merchant_id: string;
  account_number: number;
  /** The Pix returned (null in the sandbox, whose payments have none). */
  end_to_end_id: string | null;
  amount: number;
  nature: 'ORIGINAL' | 'MED_OPERACIONAL' | 'MED_FRAUDE';
  /** The merchant's message to the payer (the API Pix's descricao). */
  reason: string | null;
  /** InProcess (sent, final status not known yet), Returned or NotDone. */
  status: 'InProcess' | 'Returned' | 'NotDone';
  /** Why it was not done (the PSP's motivo, or ours). */
  status_reason: string | null;
  /** When it was first sent (wall time): the recovery's window runs from here. */
  sent_at: string;
  created_at: string;
  updated_at: string;
}

export interface PixPaymentsTable {
  end_to_end_id: string;
  txid: string | null;
  charge_id: string | null;
  merchant_id: string | null;
  amount: number;
  paid_at: string;
  source: 'webhook' | 'reconciliation' | 'sandbox';
  outcome: 'applied' | 'unknown_charge' | 'amount_mismatch' | 'not_pending' | 'not_payable';
  received_at: string;
}

export interface PixDueChargesTable {
  txid: string;
  source_id: string;
  merchant_id: string;
  amount: number;
  due_date: string;
  days_after_due: number;
  payer_document: string;
  payer_name: string;
  pix_emv: string;
  /** Removed: withdrawn at the PSP (its slip was cancelled). */
  status: 'Pending' | 'Paid' | 'Removed';
  paid_at: string | null;
  created_at: string;
  /** Terms of a charge with a due date: percents scaled by 10^4; a fixed discount until a date. */
  penalty_percent: Generated<number>;
  interest_percent: Generated<number>;
  /** JSON [{amountCents, until}]: the slip's discounts. */
  discounts: Generated<string>;
}

export interface BankSlipsTable {
  seq: Generated<number>;
  id: string;
  merchant_id: string;
  account_number: number;
  /** Cents. */
  value: number;
  issue_date: string;
  due_date: string;
  payer_document: string;
  payer_name: string;
  payer_street_and_number: string;
  payer_zip_code: string;
  payer_city: string;
  payer_state: string;
  payer_neighborhood: string;
  payer_phone_number: string | null;
  reference_code: string | null;
  pix: number;
  overdue_allow: number;
  overdue_date_limit: string | null;
  /** Percent scaled by 10^4. */
  overdue_penalty_percent: number;
  overdue_interest_percent: number;
  status_bill: BankSlipStatus;
  status_integration: number;
  failure_reason: string | null;
  our_number: string | null;
  bar_code: string | null;
  digitable_line: string | null;
  pix_emv: string | null;
  registered_at: string | null;
  paid_at: string | null;
  payment_date: string | null;
  credit_date: string | null;
  paid_value: number | null;
  penalty_received: number | null;
  interest_received: number | null;
  canceled_at: string | null;
  cancellation_reason: string | null;
  /** merchant: to be sent to the bank in the remittance; bank: written off by the bank (return file). Migration 0010. */
  canceled_by: string | null;
  created_at: string;
  updated_at: string;
  /** JSON [{type, value, until, amountCents}]: discounts for early payment (up to three). */
  discounts: Generated<string>;
}

export interface BankSlipEventsTable {
  id: Generated<number>;
  bankslip_id: string;
  merchant_id: string;
  account_number: number;
  /** Null for the issue itself. */
  old_status_bill: number | null;
  new_status_bill: number;
  occurred_at: string;
}

export interface PaymentLinksTable {
  id: string;
  merchant_id: string;
  account_number: number;
  seller_name: string;
  seller_document_number: string;
  description: string;
  /** Cents. */
  value: number;
  qtty_installments: number | null;
  /** JSON array of integers. */
  qtty_installments_custom: string | null;
  qtty_installments_int_free: number;
  /** Percent a month scaled by 10^4 (1.99 % = 19900). */
  installments_fee: number;
  message: string | null;
  /** 1 Em Aberto, 2 Pago, 3 Expirado, 9 Desativado. */
  status: number;
  operation_date: string;
  expiration_date: string;
  payment_id: string | null;
  payment_date: string | null;
  /** Cents. */
  payment_value: number | null;
  payment_qtty_installments: number | null;
  payment_authorization_code: string | null;
  claim_id: string | null;
  /** Wall clock. */
  claimed_until: string | null;
  updated_at: string;
}

export interface PaymentLinkHistoryTable {
  id: Generated<number>;
  payment_link_id: string;
  status: number;
  reason: string | null;
  history_date: string;
}

export interface RateLimitWindowsTable {
  key: string;
  hits: number;
  /** Wall clock. */
  window_started_at: string;
  window_ends_at: string;
}

export interface WebhookSubscriptionsTable {
  account_number: number;
  merchant_id: string;
  url: string;
  basic_auth_sealed: string | null;
  secret_sealed: string;
  /** JSON array of the event types delivered; null: the conciliation types (see webhooks/event-types.ts). */
  event_types: string | null;
  created_at: string;
  updated_at: string;
}

export type NotificationStatus = 'Pending' | 'Delivered' | 'Rejected' | 'Exhausted' | 'Canceled';

export interface WebhookNotificationsTable {
  /** The movementId. */
  id: Generated<number>;
  merchant_id: string;
  account_number: number;
  channel: 'webhook' | 'callback';
  type: string;
  /** The body without movementId (JSON text). */
  payload: string;
  url: string | null;
  status: NotificationStatus;
  attempts: number;
  next_attempt_at: string | null;
  deadline_at: string;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  notification_id: number;
  attempted_at: string;
  url: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export interface DB {
  settings: SettingsTable;
  merchants: MerchantsTable;
  credentials: CredentialsTable;
  login_attempts: LoginAttemptsTable;
  dashboard_sessions: DashboardSessionsTable;
  idempotency_keys: IdempotencyKeysTable;
  jobs: JobsTable;
  card_keys: CardKeysTable;
  card_tokens: CardTokensTable;
  vault_cards: VaultCardsTable;
  vault_card_updates: VaultCardUpdatesTable;
  card_update_links: CardUpdateLinksTable;
  payments: PaymentsTable;
  payment_refunds: PaymentRefundsTable;
  disputes: DisputesTable;
  dispute_evidence: DisputeEvidenceTable;
  dispute_files: DisputeFilesTable;
  payment_events: PaymentEventsTable;
  antifraud_settings: AntifraudSettingsTable;
  antifraud_blocklist: AntifraudBlocklistTable;
  merchant_pricing: MerchantPricingTable;
  receivables: ReceivablesTable;
  pix_charges: PixChargesTable;
  pix_recurrences: PixRecurrencesTable;
  pix_recurring_charges: PixRecurringChargesTable;
  pix_reconcile_cursors: PixReconcileCursorsTable;
  pix_payments: PixPaymentsTable;
  pix_refunds: PixRefundsTable;
  pix_due_charges: PixDueChargesTable;
  plans: PlansTable;
  subscriptions: SubscriptionsTable;
  billings: BillingsTable;
  bankslips: BankSlipsTable;
  bankslip_events: BankSlipEventsTable;
  payment_links: PaymentLinksTable;
  payment_link_history: PaymentLinkHistoryTable;
  rate_limit_windows: RateLimitWindowsTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_notifications: WebhookNotificationsTable;
  webhook_attempts: WebhookAttemptsTable;
  sandbox_acquirer_ledger: SandboxAcquirerLedgerTable;
  acquirer_connections: AcquirerConnectionsTable;
}

export interface SandboxAcquirerLedgerTable {
  idempotency_key: string;
  merchant_id: string;
  amount: number;
  /** An authorization's answer, or (keys `refund:<sale>:<refund id>`) a refund's: refunded or failed. */
  outcome: 'approved' | 'declined' | 'failed' | 'refunded';
  return_code: string;
  return_message: string;
  authorization_code: string | null;
  nsu: string | null;
  acquirer_reference: string | null;
  canceled_at: string | null;
  created_at: string;
  /** An approved sale's row: the cents refunded of it so far (never past amount). */
  refunded_amount: Generated<number>;
}

export interface AcquirerConnectionsTable {
  merchant_id: string;
  provider: string;
  api_url: string;
  query_url: string;
  environment: 'production' | 'sandbox';
  provider_merchant_id: string;
  merchant_key_sealed: string;
  created_at: string;
  updated_at: string;
}
