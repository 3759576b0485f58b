/**
 * Table types for Kysely. Conventions shared by both engines:
 * - datetimes are ISO 8601 UTC strings (`2026-01-31T12:00:00.000Z`), which sort as text;
 * - money is integer minor units (`bigint`), exact decimals are scaled integers;
 * - booleans are 0/1 integers (SQLite has no boolean);
 * - structured values are JSON text.
 */
import type { Generated } from 'kysely';

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
  /** HMAC of the PAN under a key derived from DATA_KEY: equal cards, equal fingerprints. */
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
}

export interface PaymentsTable {
  payment_id: string;
  merchant_id: string;
  account_number: number;
  status: string;
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
  authorization_code: string | null;
  nsu: string | null;
  acquirer_reference: string | null;
  splits: string;
  billing_id: string | null;
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

export interface DB {
  settings: SettingsTable;
  merchants: MerchantsTable;
  credentials: CredentialsTable;
  login_attempts: LoginAttemptsTable;
  idempotency_keys: IdempotencyKeysTable;
  jobs: JobsTable;
  card_keys: CardKeysTable;
  card_tokens: CardTokensTable;
  vault_cards: VaultCardsTable;
  payments: PaymentsTable;
  payment_events: PaymentEventsTable;
  antifraud_settings: AntifraudSettingsTable;
  antifraud_blocklist: AntifraudBlocklistTable;
}
